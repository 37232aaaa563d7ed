// ema-cross through the real strategy runner: EMA(2) over EMA(3) of hand-made 1-minute bars whose true range is
// always 10 (so ATR(2) is 10), the entry sized from the risk to the ATR stop, the stop as a trigger order, and the
// reversal on the opposite cross closing what its own fills hold and cancelling that side's stop.
import { describe, expect, it } from '@jest/globals';
import ema from '../../examples/strategies/ema-cross/index.js';
import { StrategyHarness, makeBars, openOrder } from 'sextant/testing';

const SYMBOL = 'cmt_ethusdt';
// Closes falling, rising, falling; each bar spans its close ± 5. EMA(2) − EMA(3), by sign: 0 (one close), −1 for
// bars 1–5, +1 for bars 6–8 (a cross up at bar 6, close 3010), −1 from bar 9 (a cross down, close 3005).
const CLOSES = [3020, 3015, 3010, 3005, 3000, 3005, 3010, 3015, 3010, 3005, 3000];
const bars = makeBars(
  SYMBOL,
  '1m',
  CLOSES.map((c) => ({ close: String(c), high: String(c + 5), low: String(c - 5) })),
);

function harness(params: Record<string, unknown> = {}) {
  const h = new StrategyHarness(ema, {
    symbols: [SYMBOL],
    params: { fast: 2, slow: 3, atrPeriod: 2, atrStop: 2, riskQuote: '10', ...params },
    timeframes: ['1m', '15m'],
  });
  h.setTicker(SYMBOL, { last: '3010', bid: '3009.99', ask: '3010.01' });
  return h;
}

describe('ema-cross', () => {
  it('opens a long at market on the cross up with its ATR stop, reverses to a short on the cross down', () => {
    const h = harness();
    // No cross while the fast EMA stays under the slow one.
    expect(h.bars(bars.slice(0, 6))).toEqual([[], [], [], [], [], []]);
    // Cross up at 3010: the stop 2 × ATR 10 below, at 2990; risking 10 USDT over 20 is 0.5 ETH.
    expect(h.bar(bars[6]!)).toEqual([
      {
        kind: 'place',
        strategyId: 't',
        surface: 'futures',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size: '0.5', positionSide: 'long' }],
      },
      { kind: 'place-trigger', strategyId: 't', symbol: SYMBOL, positionSide: 'long', reduceOnly: true, size: '0.5', triggerPrice: '2990' },
    ]);
    h.fill(SYMBOL, { side: 'buy', size: '0.5', price: '3010.01', positionSide: 'long' });
    h.openOrders = [
      openOrder(SYMBOL, { clientOid: 'sl1', orderId: 'plan-1', side: 'sell', size: '0.5', status: 'untriggered', positionSide: 'long', reduceOnly: true }),
    ];
    expect(h.bar(bars[7]!)).toEqual([]);
    expect(h.bar(bars[8]!)).toEqual([]);
    // Cross down at 3005: the long's stop cancelled, the long closed at market, a short opened with its stop at 3025.
    expect(h.bar(bars[9]!)).toEqual([
      { kind: 'cancel-trigger', strategyId: 't', symbol: SYMBOL, orderId: 'plan-1' },
      {
        kind: 'place',
        strategyId: 't',
        surface: 'futures',
        symbol: SYMBOL,
        orders: [{ side: 'sell', kind: 'market', timeInForce: 'ioc', size: '0.5', positionSide: 'long', reduceOnly: true }],
      },
      {
        kind: 'place',
        strategyId: 't',
        surface: 'futures',
        symbol: SYMBOL,
        orders: [{ side: 'sell', kind: 'market', timeInForce: 'ioc', size: '0.5', positionSide: 'short' }],
      },
      { kind: 'place-trigger', strategyId: 't', symbol: SYMBOL, positionSide: 'short', reduceOnly: true, size: '0.5', triggerPrice: '3025' },
    ]);
    h.fill(SYMBOL, { side: 'sell', size: '0.5', price: '3005', positionSide: 'long', reduceOnly: true });
    expect(h.bar(bars[10]!)).toEqual([]);
  });

  it('enters with an IOC limit at the touch when asked; a risk too small for the minimum size opens nothing', () => {
    const h = harness({ entry: 'limit', atrStop: 1.5 });
    h.bars(bars.slice(0, 6));
    // Stop 1.5 × 10 below 3010: 2995; 10 USDT over 15 is 0.666… ETH, rounded down to the step.
    expect(h.bar(bars[6]!)).toEqual([
      {
        kind: 'place',
        strategyId: 't',
        surface: 'futures',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'limit', price: '3010.01', timeInForce: 'ioc', size: '0.666', positionSide: 'long' }],
      },
      { kind: 'place-trigger', strategyId: 't', symbol: SYMBOL, positionSide: 'long', reduceOnly: true, size: '0.666', triggerPrice: '2995' },
    ]);
    const tiny = harness({ riskQuote: '0.01' });
    tiny.bars(bars.slice(0, 6));
    // 0.01 USDT over 20 is 0.0005 ETH, under the minimum size (0.001).
    expect(tiny.bar(bars[6]!)).toEqual([]);
  });

  it('reads only its own timeframe, and refuses a fast EMA not shorter than the slow one', () => {
    const h = harness();
    expect(h.bars(makeBars(SYMBOL, '15m', CLOSES.map(String)))).toEqual(CLOSES.map(() => []));
    expect(ema.params.safeParse({ fast: 21, slow: 9 }).success).toBe(false);
  });
});
