// The futures figures from the simulator's own state: a hedged BTC position (a long and a short) and an ETH short
// held across recorded and seeded settlements. The funding rows the report reads from the ledger are every funding
// entry the engine booked, each with its settlement's rate and the side its sign implies; the totals are the
// account's cumulative funding; the fees by kind are the account's trading fees.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ReplayRecord } from '../../../src/domain/replay-record.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../src/exchange/sim/simulated-exchange.js';
import { FundingCollector, fundingRows, futuresReport, type FillKind } from '../../../src/report/futures.js';
import { realize } from '../../../src/report/metrics.js';
import type { Fill } from '../../../src/domain/market.js';

const d = (s: string) => Decimal.from(s);
const H = 3_600_000;
const DAY = Date.UTC(2026, 0, 5);

function run() {
  const records: ReplayRecord[] = [];
  for (let ts = DAY + 7 * H; ts <= DAY + 17 * H; ts += H) {
    records.push({ ts, symbol: 'cmt_btcusdt', price: '90000', size: '5', mark: '90010' });
    records.push({ ts, symbol: 'cmt_ethusdt', price: '3000', size: '50' });
  }
  const sim = new SimulatedExchange(new ReplayMarket(DEFAULT_INSTRUMENTS, records), { spot: {}, futuresCollateral: '100000', leverage: 20 });
  const engine = sim.engine;
  engine.setFundingHistory('cmt_btcusdt', [
    { settlementMs: DAY + 8 * H, rate: d('0.0001') },
    { settlementMs: DAY + 16 * H, rate: d('-0.0002') },
  ]);
  const fills: Fill[] = [];
  const kinds = new Map<string, FillKind>();
  engine.onFill = (f, order) => {
    fills.push(f);
    const detail = engine.fillDetail(f.symbol, f.fillId);
    kinds.set(f.fillId, { taker: detail?.taker ?? null, liquidation: order.liquidation === true, positionSide: detail?.positionSide ?? null });
  };
  sim.advanceTo(DAY + 7 * H);
  const market = (clientOid: string, side: 'buy' | 'sell', size: string, positionSide: 'long' | 'short') => ({
    clientOid,
    side,
    kind: 'market' as const,
    timeInForce: 'gtc' as const,
    size: d(size),
    positionSide,
  });
  expect(engine.place('futures', 'cmt_btcusdt', [market('l', 'buy', '0.1', 'long'), market('s', 'sell', '0.05', 'short')]).every((r) => r.ok)).toBe(true);
  expect(engine.place('futures', 'cmt_ethusdt', [market('e', 'sell', '1', 'short')]).every((r) => r.ok)).toBe(true);
  // The report collects as the run goes: after each settlement hour, and at the end.
  const collector = new FundingCollector((q) => engine.ledger(q));
  for (let ts = DAY + 8 * H; ts <= DAY + 17 * H; ts += H) {
    sim.advanceTo(ts);
    if (ts === DAY + 9 * H) collector.collect(ts);
  }
  collector.collect(DAY + 17 * H);
  return { engine, fills, kinds, collector };
}

describe('the futures figures from the simulator', () => {
  const { engine, fills, kinds, collector } = run();
  const rows = fundingRows(collector.entries, (symbol, atMs) => engine.funding.rate(symbol, engine.funding.lastSettlementMs(symbol, atMs)));

  it('read every funding entry the engine booked, once', () => {
    const booked = engine.ledgerEntries().filter((e) => e.kind === 'funding');
    expect(booked.length).toBeGreaterThanOrEqual(4);
    expect(collector.entries.map((e) => e.billId).sort()).toEqual(booked.map((e) => e.billId).sort());
  });

  it('each recorded BTC settlement: the long and the short at the rate × size × mark, the side read from the sign', () => {
    const btc = rows.flatMap((r) =>
      r.kind === 'funding' && r.symbol === 'cmt_btcusdt' ? [[(r.timestampMs - DAY) / H, r.amount.toString(), r.rate?.toString(), r.positionSide]] : [],
    );
    // A change of collateral: −rate × size × mark for a long, +rate × size × mark for a short (positive rate: the
    // long pays, the short receives; negative, the reverse).
    const amount = (rate: string, size: string, side: 'long' | 'short') =>
      d(rate)
        .mul(d(size))
        .mul(d('90010'))
        .mul(Decimal.fromInt(side === 'long' ? -1 : 1))
        .toString();
    expect(btc).toEqual(
      expect.arrayContaining([
        [8, amount('0.0001', '0.1', 'long'), '0.0001', 'long'],
        [8, amount('0.0001', '0.05', 'short'), '0.0001', 'short'],
        [16, amount('-0.0002', '0.1', 'long'), '-0.0002', 'long'],
        [16, amount('-0.0002', '0.05', 'short'), '-0.0002', 'short'],
      ]),
    );
    expect(btc).toHaveLength(4);
    // ETH at the seeded rates: its short's side follows the sign of each.
    for (const r of rows) if (r.kind === 'funding' && r.symbol === 'cmt_ethusdt' && r.rate && !r.rate.isZero()) expect(r.positionSide).toBe('short');
  });

  it("the totals are the account's cumulative funding; the fees by kind its trading fees", () => {
    const report = futuresReport({
      futures: new Set(['cmt_btcusdt', 'cmt_ethusdt']),
      funding: collector.entries,
      liquidations: engine.liquidations(),
      trades: realize(fills),
      kinds,
      equity: [],
    });
    const view = engine.accountView();
    expect(report.funding.net).toBe(view.cumFunding.toString(8));
    expect(d(report.funding.received).sub(d(report.funding.paid)).eq(view.cumFunding)).toBe(true);
    // Market orders: every fee a taker's.
    expect(report.fees).toEqual({ maker: '0.00000000', taker: view.cumFees.toString(8), liquidation: '0.00000000', total: view.cumFees.toString(8) });
    expect(report.liquidations).toEqual([]);
  });
});
