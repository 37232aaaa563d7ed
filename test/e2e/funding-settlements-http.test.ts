// A long held across three funding settlements, against the simulator over HTTP and read by the live client: each
// settlement charges rate × position value at mark, to the last digit, and the venue's answers agree — the F30
// bill, the F4 position's funding_fee and cum_funding_fee, and the F3 collateral's cum_position_funding_amount.
// The rate (F16) and the mark (F17) are read from the venue at the settlement; the amount is worked out here.
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { ManualClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { clientFor } from '../fixtures/live-client.js';

const CREDS = { apiKey: 'k-fund', apiSecret: 's-fund', passphrase: 'p-fund' };
const BIG = { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 };
const FUT = 'cmt_btcusdt';
/** Settlements every 5 minutes (the interval is per contract, as the venue's differ). */
const INTERVAL_MS = 5 * 60_000;

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const x of opened.splice(0).reverse()) await x.close();
});

describe('a long held across three funding settlements', () => {
  it('pays rate × size × mark at each, the same in F30, F4 and F3', async () => {
    const spec = { ...DEFAULT_INSTRUMENTS.find((s) => s.symbol === FUT)!, fundingIntervalMinutes: 5, fundingOffsetMinutes: 0 };
    const t0 = Date.UTC(2026, 0, 5, 1) + 10_000;
    const clock = new ManualClock(t0);
    const market = new SyntheticMarket([spec], { seed: 11, startMs: t0, tickIntervalMs: 1000 });
    const server = new SimServer({
      market,
      accounts: { spot: { USDT: '0' }, futuresCollateral: '50000', leverage: 20 },
      credentials: CREDS,
      budget: BIG,
      clock,
      logger: silentLogger,
    });
    const url = await server.listen(0, '127.0.0.1');
    opened.push(server);
    const client: LiveClient = clientFor({ url, opts: CREDS } as never, { clock });
    opened.push(client);

    const [placed] = await client.placeOrders('futures', FUT, [
      { clientOid: 'fund_long_1', side: 'buy', kind: 'market', timeInForce: 'ioc', size: Decimal.from('0.5'), positionSide: 'long' },
    ]);
    expect(placed!.outcome === 'rejected' ? placed!.error.message : placed!.outcome).toBe('accepted');
    const [long] = await client.positions(FUT);
    expect(long!.size.toString()).toBe('0.5');
    const collateralBefore = (await client.balances('futures'))[0]!.total;

    let first = Math.ceil(t0 / INTERVAL_MS) * INTERVAL_MS;
    expect(await client.nextFundingTime(FUT)).toBe(first);
    let sum = Decimal.ZERO;
    const seen: string[] = [];
    for (let k = 0; k < 3; k++, first += INTERVAL_MS) {
      clock.set(first);
      // The venue at the settlement: its mark, and the rate it settled at.
      const mark = (await client.priceIndex(FUT, 'mark')).price;
      const settled = (await client.fundingHistory(FUT, 1))[0]!;
      expect(settled.fundingTimeMs).toBe(first);
      expect(settled.rate.isZero()).toBe(false);
      // Positive: the long pays (a debit of collateral); negative: it receives.
      const expected = settled.rate.mul(long!.size).mul(mark).neg();
      const bills = await client.ledger({ kind: 'funding', symbol: FUT });
      const bill = bills.entries[0]!;
      expect({ kind: bill.kind, raw: bill.rawKind, at: bill.timestampMs >= first, amount: bill.amount.toString() }).toEqual({
        kind: 'funding',
        raw: 'position_funding',
        at: true,
        amount: expected.toString(),
      });
      expect(seen).not.toContain(bill.billId);
      seen.push(bill.billId);
      sum = sum.add(expected);
      const [pos] = await client.positions(FUT);
      expect({ fee: pos!.fundingFee!.toString(), cum: pos!.cumFundingFee!.toString() }).toEqual({ fee: expected.toString(), cum: sum.toString() });
      const [collateral] = await client.balances('futures');
      expect(collateral!.cumFunding!.toString()).toBe(sum.toString());
      expect(collateral!.total.toString()).toBe(collateralBefore.add(sum).toString());
    }
    const all = await client.ledger({ kind: 'funding', symbol: FUT, limit: 100 });
    expect(all.entries.map((e) => e.billId).sort()).toEqual([...seen].sort());
  });
});
