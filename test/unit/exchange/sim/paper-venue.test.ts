// The dry-run paper venue: the simulator's engine follows polled tickers, and resting orders fill when the
// followed price crosses them.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { Ticker } from '../../../../src/domain/market.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../../src/exchange/sim/instruments.js';
import { PaperVenue } from '../../../../src/exchange/sim/paper-venue.js';

const d = (s: string) => Decimal.from(s);
const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_btcusdt';
const INSTRUMENTS = DEFAULT_INSTRUMENTS.filter((s) => s.symbol === SPOT || s.symbol === FUT).map(toInstrument);

function ticker(symbol: string, timestampMs: number, last: string | null, bid?: string, ask?: string): Ticker {
  return {
    symbol, timestampMs, last: last === null ? null : d(last), bestBid: bid ? d(bid) : null, bestAsk: ask ? d(ask) : null,
    markPrice: null, indexPrice: null, high24h: null, low24h: null, volume24h: null, baseVolume24h: null,
  };
}

function venue(): PaperVenue {
  return new PaperVenue(INSTRUMENTS, { spot: { USDT: '100000' }, futuresCollateral: '100000', leverage: 10 }, 1000);
}

describe('paper venue', () => {
  it('a resting buy fills once the followed price crosses it, not before', async () => {
    const paper = venue();
    paper.follow([ticker(SPOT, 1_000, '90000', '89999.9', '90000.1')], 1_000);
    const [placed] = await paper.placeOrders('spot', SPOT, [{ clientOid: 'pv_buy', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89500'), size: d('0.001') }]);
    expect(placed!.outcome).toBe('accepted');

    paper.follow([ticker(SPOT, 2_000, '89800', '89799.9', '89800.1')], 2_000);
    expect((await paper.order('spot', SPOT, { clientOid: 'pv_buy' }))!.status).toBe('open');
    expect(await paper.fills('spot', SPOT)).toEqual([]);

    paper.follow([ticker(SPOT, 3_000, '89400', '89399.9', '89400.1')], 3_000);
    const order = (await paper.order('spot', SPOT, { clientOid: 'pv_buy' }))!;
    expect(order.status).toBe('filled');
    expect(order.filledSize.toString()).toBe('0.001');
    const fills = await paper.fills('spot', SPOT);
    expect(fills).toHaveLength(1);
    expect(fills[0]!.timestampMs).toBe(3_000);
    expect(await paper.openOrders('spot', SPOT)).toEqual([]);
    const btc = (await paper.balances('spot')).find((b) => b.asset === 'BTC');
    expect(btc!.total.gt(Decimal.fromInt(0))).toBe(true);
  });

  it('follows futures tickers too; tickers without a last price, of other symbols or late are left out', async () => {
    const paper = venue();
    paper.follow([
      ticker(FUT, 1_000, '90000', '89999.9', '90000.1'),
      ticker('cmt_ethusdt', 1_000, '3000'),
      ticker(SPOT, 1_000, null),
    ], 1_000);
    expect(paper.simulator.clock.now()).toBe(1_000);
    expect((await paper.tickers()).map((t) => [t.symbol, t.last?.toString()])).toEqual([[FUT, '90000']]);
    // A sample older than the feed's last record is dropped: the market does not go back in time.
    paper.follow([ticker(FUT, 500, '80000')], 2_000);
    expect((await paper.tickers())[0]!.last!.toString()).toBe('90000');
    expect(paper.simulator.clock.now()).toBe(2_000);
    paper.follow([ticker(FUT, 2_500, '90100', '90099.9', '90100.1')], 3_000);
    expect((await paper.tickers())[0]!.last!.toString()).toBe('90100');
  });
});
