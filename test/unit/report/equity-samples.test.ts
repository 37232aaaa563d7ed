// The account sampled through a run: given the same balance and position arrays again (a caller that reads the
// account only once it changed), the samples are those of an account read afresh every time: equity, buy-and-hold,
// exposure and the price series.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Balance, Instrument, Position, Ticker } from '../../../src/domain/market.js';
import { EquitySamples, type AccountNow } from '../../../src/report/equity-samples.js';

const d = (s: string) => Decimal.from(s);
const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_btcusdt';

function instrument(symbol: string, surface: 'spot' | 'futures'): Instrument {
  return {
    surface,
    symbol,
    base: 'BTC',
    quote: 'USDT',
    tickSize: d('0.1'),
    stepSize: d('0.001'),
    minSize: d('0.001'),
    maxSize: null,
    makerFeeRate: d('0.0002'),
    takerFeeRate: d('0.0006'),
    buyLimitPriceRatio: null,
    sellLimitPriceRatio: null,
    tradingEnabled: true,
    contractValue: surface === 'futures' ? d('0.001') : null,
    maxPositionSize: null,
    minLeverage: null,
    maxLeverage: null,
  };
}

const ticker = (symbol: string, last: string): Ticker =>
  ({
    symbol,
    last: d(last),
    bestBid: null,
    bestAsk: null,
    markPrice: null,
    indexPrice: null,
    high24h: null,
    low24h: null,
    volume24h: null,
  }) as unknown as Ticker;
const balance = (surface: 'spot' | 'futures', asset: string, total: string): Balance => ({
  surface,
  asset,
  available: d(total),
  frozen: null,
  total: d(total),
});
const position = (size: string, openValue: string): Position => ({ symbol: FUT, side: 'long', size: d(size), openValue: d(openValue) }) as unknown as Position;

/** The account over time: [ms, BTC held, futures position or none, price]. */
const STATES: Array<[number, string, [string, string] | null, string]> = [
  [0, '1', null, '100'],
  [1000, '1', null, '101'],
  [2000, '1.5', null, '99'],
  [3000, '1.5', ['2', '200'], '102'],
  [4000, '1.5', ['2', '200'], '98'],
  [5000, '1', null, '97'],
  [5500, '1', null, '96'],
  [6000, '1', null, '103'],
];

describe('EquitySamples', () => {
  it('an account given again as the same arrays samples as one read afresh', () => {
    const instruments = new Map([
      [SPOT, instrument(SPOT, 'spot')],
      [FUT, instrument(FUT, 'futures')],
    ]);
    const counted = (bs: Balance[]) => bs.filter((b) => b.surface === 'spot' || b.surface === 'futures');
    const read = ([, btc, pos, price]: (typeof STATES)[number]): AccountNow => ({
      tickers: new Map([
        [SPOT, ticker(SPOT, price)],
        [FUT, ticker(FUT, price)],
      ]),
      balances: [balance('spot', 'USDT', '1000'), balance('spot', 'BTC', btc), balance('futures', 'USDT', '500')],
      positions: pos ? [position(pos[0], pos[1])] : [],
    });
    const fresh = new EquitySamples(instruments, counted, read(STATES[0]!));
    const kept = new EquitySamples(instruments, counted, read(STATES[0]!));
    let last: AccountNow | undefined;
    let reused = 0;
    STATES.forEach((state, i) => {
      fresh.sample(state[0], read(state));
      // The same arrays while the balances and the position stay as they were.
      const now = read(state);
      const same = last && i > 0 && STATES[i - 1]![1] === state[1] && JSON.stringify(STATES[i - 1]![2]) === JSON.stringify(state[2]);
      if (same) reused++;
      kept.sample(state[0], same ? { ...now, balances: last!.balances, positions: last!.positions } : now);
      last = same ? { ...now, balances: last!.balances, positions: last!.positions } : now;
    });
    expect(reused).toBeGreaterThan(2);
    expect(kept.points.map((p) => [p.ts, p.equity.toString(), p.hold.toString()])).toEqual(
      fresh.points.map((p) => [p.ts, p.equity.toString(), p.hold.toString()]),
    );
    expect(kept.exposed).toEqual(fresh.exposed);
    expect(fresh.exposed).toEqual([false, false, true, true, true, false, false, false]);
    expect(kept.prices).toEqual(fresh.prices);
    expect(kept.marks).toEqual(fresh.marks);
  });
});
