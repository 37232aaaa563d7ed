// The dry-run paper venue: the simulator's engine follows polled tickers, and resting orders fill when the
// followed price crosses them; public market data comes from the venue's client it wraps, trigger orders from the
// simulator.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { Ticker } from '../../../../src/domain/market.js';
import type { ExchangeClient } from '../../../../src/exchange/client.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { PaperVenue } from '../../../../src/exchange/sim/paper-venue.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';

const d = (s: string) => Decimal.from(s);
const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_btcusdt';
const INSTRUMENTS = DEFAULT_INSTRUMENTS.filter((s) => s.symbol === SPOT || s.symbol === FUT).map(toInstrument);

function ticker(symbol: string, timestampMs: number, last: string | null, bid?: string, ask?: string): Ticker {
  return {
    symbol,
    timestampMs,
    last: last === null ? null : d(last),
    bestBid: bid ? d(bid) : null,
    bestAsk: ask ? d(ask) : null,
    markPrice: null,
    indexPrice: null,
    high24h: null,
    low24h: null,
    volume24h: null,
    baseVolume24h: null,
  };
}

function venue(): PaperVenue {
  return new PaperVenue(INSTRUMENTS, { spot: { USDT: '100000' }, futuresCollateral: '100000', leverage: 10 }, 1000);
}

describe('paper venue', () => {
  it('a resting buy fills once the followed price crosses it, not before', async () => {
    const paper = venue();
    paper.follow([ticker(SPOT, 1_000, '90000', '89999.9', '90000.1')], 1_000);
    const [placed] = await paper.placeOrders('spot', SPOT, [
      { clientOid: 'pv_buy', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d('89500'), size: d('0.001') },
    ]);
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
    paper.follow([ticker(FUT, 1_000, '90000', '89999.9', '90000.1'), ticker('cmt_ethusdt', 1_000, '3000'), ticker(SPOT, 1_000, null)], 1_000);
    expect(paper.simulator.clock.now()).toBe(1_000);
    expect((await paper.tickers()).map((t) => [t.symbol, t.last?.toString()])).toEqual([[FUT, '90000']]);
    // A sample older than the feed's last record is dropped: the market does not go back in time.
    paper.follow([ticker(FUT, 500, '80000')], 2_000);
    expect((await paper.tickers())[0]!.last!.toString()).toBe('90000');
    expect(paper.simulator.clock.now()).toBe(2_000);
    paper.follow([ticker(FUT, 2_500, '90100', '90099.9', '90100.1')], 3_000);
    expect((await paper.tickers())[0]!.last!.toString()).toBe('90100');
  });

  it('public market data from the wrapped client; trigger orders, open and final, from the simulator', async () => {
    const market = new SimulatedExchange(new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 4, startMs: 1_000, tickIntervalMs: 100 }), {
      spot: {},
      futuresCollateral: '0',
      leverage: 1,
    });
    market.advanceTo(60_000);
    const asked: string[] = [];
    const wrapped = new Proxy(market, {
      get: (target, key, receiver) => {
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function'
          ? (...args: unknown[]) => (asked.push(String(key)), (value as (...a: unknown[]) => unknown).apply(target, args))
          : value;
      },
    }) as ExchangeClient;
    const paper = new PaperVenue(INSTRUMENTS, { spot: { USDT: '100000' }, futuresCollateral: '100000', leverage: 10 }, 1000, wrapped);
    paper.follow([ticker(FUT, 1_000, '90000', '89999.9', '90000.1')], 1_000);
    expect((await paper.candles(FUT, '1m', { limit: 5 })).map((c) => c.openMs)).toEqual((await market.candles(FUT, '1m', { limit: 5 })).map((c) => c.openMs));
    expect((await paper.ticker(FUT)).last!.eq((await market.ticker(FUT)).last!)).toBe(true);
    await paper.depth(SPOT);
    await paper.historyCandles(FUT, '1h', { startMs: 0, endMs: 3_600_000 });
    await paper.fundingRates(FUT);
    await paper.nextFundingTime(FUT);
    await paper.fundingHistory(FUT, 3);
    await paper.priceIndex(FUT, 'index');
    expect(asked.filter((k) => k !== 'candles' && k !== 'ticker')).toEqual([
      'depth',
      'historyCandles',
      'fundingRates',
      'nextFundingTime',
      'fundingHistory',
      'priceIndex',
    ]);
    const placed = await paper.placeTrigger({
      symbol: FUT,
      clientOid: 'pv_trg',
      positionSide: 'long',
      reduceOnly: false,
      size: d('0.01'),
      triggerPrice: d('95000'),
    });
    expect(placed.outcome).toBe('accepted');
    expect((await paper.triggerOrders(FUT)).map((o) => [o.clientOid, o.status, o.triggerPrice!.toString()])).toEqual([['pv_trg', 'untriggered', '95000']]);
    paper.follow([ticker(FUT, 2_000, '95100', '95099.9', '95100.1')], 2_000);
    expect(await paper.triggerOrders(FUT)).toEqual([]);
    expect((await paper.triggerOrderHistory(FUT)).map((o) => [o.clientOid, o.status, o.triggeredAtMs])).toEqual([['pv_trg', 'filled', 2_000]]);
    expect(asked.some((k) => k.startsWith('trigger'))).toBe(false);
  });
});
