// rsi-reversion through the real strategy runner: RSI(3) of hand-made 1-minute closes worked out by hand, the buy at
// the bid sized from a quote amount or a share of equity, the stale order cancelled, the holding sold at the ask.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../src/domain/decimal.js';
import rsi from '../../examples/strategies/rsi-reversion/index.js';
import { StrategyHarness, makeBars, openOrder } from 'sextant/testing';

const SYMBOL = 'BTCUSDT_SPBL';
// RSI(3), Wilder: no value for the first 3 closes; then 100, 40, 16, 8.42, 46.46, 67.01, 79.07.
const CLOSES = ['90000', '90100', '90200', '90300', '90000', '89500', '89000', '89500', '90000', '90500'];
const bars = makeBars(SYMBOL, '1m', CLOSES);

function harness(params: Record<string, unknown> = {}) {
  const h = new StrategyHarness(rsi, { symbols: [SYMBOL], params: { period: 3, buyBelow: 30, sellAbove: 70, ...params }, timeframes: ['1m', '15m'] });
  h.setTicker(SYMBOL, { last: '89500', bid: '89499.9', ask: '89500' });
  return h;
}

describe('rsi-reversion', () => {
  it('buys at the bid when oversold and flat, cancels the order a bar later, sells the holding at the ask once recovered', () => {
    const h = harness({ quoteAmount: '1000' });
    // No RSI yet, then 100 (nothing held to sell), then 40: nothing.
    expect(h.bars(bars.slice(0, 5))).toEqual([[], [], [], [], []]);
    // RSI 16: 1000 USDT at the bid 89499.9 is 0.011173... BTC, rounded down to the step (0.000001).
    expect(h.bar(bars[5]!)).toEqual([
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: '89499.9', size: '0.011173' }],
      },
    ]);
    // Still open at the next bar: cancelled, nothing new while it is.
    h.openOrders = [openOrder(SYMBOL, { clientOid: 'b1', side: 'buy', price: '89499.9', size: '0.011173', filled: '0.005' })];
    expect(h.bar(bars[6]!)).toEqual([{ kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['b1'] }]);
    h.openOrders = [{ ...h.openOrders[0]!, status: 'canceling' }];
    h.fill(SYMBOL, { side: 'buy', size: '0.005', price: '89499.9' });
    // RSI 46 and 67: between the thresholds; the cancel still under way anyway.
    expect(h.bar(bars[7]!)).toEqual([]);
    h.openOrders = [];
    expect(h.bar(bars[8]!)).toEqual([]);
    // RSI 79: what it holds, at the ask.
    h.setTicker(SYMBOL, { last: '90500', bid: '90499.9', ask: '90500' });
    expect(h.bar(bars[9]!)).toEqual([
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: '90500', size: '0.005' }],
      },
    ]);
  });

  it('does not buy again while it holds, and sizes from a share of equity when asked', () => {
    const h = harness({ equityPct: 10 });
    h.balances = [
      { surface: 'spot', asset: 'USDT', available: Decimal.from('50000'), frozen: Decimal.ZERO, total: Decimal.from('50000') },
      { surface: 'spot', asset: 'BTC', available: Decimal.from('0.5'), frozen: Decimal.ZERO, total: Decimal.from('0.5') },
    ];
    h.bars(bars.slice(0, 5));
    // Equity 50000 + 0.5 × 89500 (the last price) = 94750; 10 % is 9475 USDT: 0.105866... BTC at 89499.9.
    expect(h.bar(bars[5]!)).toEqual([
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: '89499.9', size: '0.105866' }],
      },
    ]);
    h.fill(SYMBOL, { side: 'buy', size: '0.105866', price: '89499.9' });
    // RSI 8: still oversold, but it holds some.
    expect(h.bar(bars[6]!)).toEqual([]);
  });

  it('reads only its own timeframe, and refuses thresholds the wrong way round', () => {
    const h = harness();
    // The 15-minute bars of the same falling closes: not its timeframe (1m).
    expect(h.bars(makeBars(SYMBOL, '15m', CLOSES.slice(0, 7)))).toEqual([[], [], [], [], [], [], []]);
    expect(rsi.params.safeParse({ buyBelow: 60, sellAbove: 40 }).success).toBe(false);
    expect(rsi.params.safeParse({ quoteAmount: 1000 }).success).toBe(false);
  });
});
