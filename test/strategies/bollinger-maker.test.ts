// bollinger-maker through the real strategy runner: Bollinger bands (4, 2) of hand-made 1-minute closes, quotes on the
// bands rounded away from the book, kept while they match, clamped to stay passive, moved to the middle band and
// pulled as its own fills build up what it holds.
import { describe, expect, it } from '@jest/globals';
import bb from '../../examples/strategies/bollinger-maker/index.js';
import { StrategyHarness, makeBars, openOrder } from 'sextant/testing';

const SYMBOL = 'BTCUSDT_SPBL';
// Bands (4, 2), population deviation: bars 3 and 4 89990 / 90010 / 90030 (deviation 10); bar 5 89991.716 / 90020 /
// 90048.284 (√200); bar 6 89991.834 / 90025 / 90058.166; bar 7 89995.359 / 90030 / 90064.641; bar 8 89883.756 /
// 90005 / 90126.244.
const CLOSES = ['90000', '90000', '90020', '90020', '90000', '90040', '90040', '90040', '89900'];
const bars = makeBars(SYMBOL, '1m', CLOSES);
const quote = (side: 'buy' | 'sell', price: string) => ({ side, kind: 'limit', timeInForce: 'post_only', price, size: '0.01' });

describe('bollinger-maker', () => {
  it('quotes the bands, keeps matching quotes, re-quotes as they move, and leans on what it holds', () => {
    const h = new StrategyHarness(bb, {
      symbols: [SYMBOL],
      params: { period: 4, deviations: 2, size: '0.01', maxInventory: '0.02' },
      timeframes: ['1m', '15m'],
    });
    h.setTicker(SYMBOL, { last: '90020', bid: '90019.9', ask: '90020' });
    expect(h.bars(bars.slice(0, 3))).toEqual([[], [], []]);
    expect(h.bar(bars[3]!)).toEqual([
      { kind: 'place', strategyId: 't', surface: 'spot', symbol: SYMBOL, orders: [quote('buy', '89990'), quote('sell', '90030')] },
    ]);
    // Resting where the same bands want them: nothing.
    h.openOrders = [
      openOrder(SYMBOL, { clientOid: 'b1', side: 'buy', price: '89990', size: '0.01' }),
      openOrder(SYMBOL, { clientOid: 'a1', side: 'sell', price: '90030', size: '0.01' }),
    ];
    expect(h.bar(bars[4]!)).toEqual([]);
    // The bands move: both replaced, rounded away from the book (bid down, ask up).
    h.setTicker(SYMBOL, { last: '90040', bid: '90039.9', ask: '90040' });
    expect(h.bar(bars[5]!)).toEqual([
      { kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['b1', 'a1'] },
      { kind: 'place', strategyId: 't', surface: 'spot', symbol: SYMBOL, orders: [quote('buy', '89991.7'), quote('sell', '90048.3')] },
    ]);
    // The bid fills: holding 0.01, it asks at the middle band (90025), under the best bid: clamped a tick above it.
    h.fill(SYMBOL, { side: 'buy', size: '0.01', price: '89991.7' });
    h.openOrders = [openOrder(SYMBOL, { clientOid: 'a2', side: 'sell', price: '90048.3', size: '0.01' })];
    expect(h.bar(bars[6]!)).toEqual([
      { kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['a2'] },
      { kind: 'place', strategyId: 't', surface: 'spot', symbol: SYMBOL, orders: [quote('buy', '89991.8'), quote('sell', '90040')] },
    ]);
    // Another fill: holding 0.02, the limit, so the bid goes; the ask still wants 90040, where it rests.
    h.fill(SYMBOL, { side: 'buy', size: '0.01', price: '89991.8' });
    h.openOrders = [
      openOrder(SYMBOL, { clientOid: 'b3', side: 'buy', price: '89991.8', size: '0.01' }),
      openOrder(SYMBOL, { clientOid: 'a3', side: 'sell', price: '90040', size: '0.01' }),
    ];
    expect(h.bar(bars[7]!)).toEqual([{ kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['b3'] }]);
    // Sold 0.04 since: short 0.02, the limit the other way; it bids at the middle band (90005), above the best ask:
    // clamped a tick under it. The ask goes.
    h.fill(SYMBOL, { side: 'sell', size: '0.04', price: '90040' });
    h.openOrders = [openOrder(SYMBOL, { clientOid: 'a3', side: 'sell', price: '90040', size: '0.01', filled: '0.005' })];
    h.setTicker(SYMBOL, { last: '89900', bid: '89899.9', ask: '89900' });
    expect(h.bar(bars[8]!)).toEqual([
      { kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['a3'] },
      { kind: 'place', strategyId: 't', surface: 'spot', symbol: SYMBOL, orders: [quote('buy', '89899.9')] },
    ]);
  });

  it('without a book (a ticker from the last trade) stays a tick clear of the bar close; other timeframes are not its own', () => {
    const h = new StrategyHarness(bb, { symbols: [SYMBOL], params: { period: 4 }, timeframes: ['1m', '15m'] });
    h.setTicker(SYMBOL, { last: '90020' });
    expect(h.bars(makeBars(SYMBOL, '15m', CLOSES))).toEqual(CLOSES.map(() => []));
    h.bars(bars.slice(0, 7));
    h.fill(SYMBOL, { side: 'buy', size: '0.01', price: '90000' });
    // Holding 0.01: the ask at the middle band, 90030, is under the close 90040: a tick above the close instead.
    expect(h.bar(bars[7]!)).toEqual([
      { kind: 'place', strategyId: 't', surface: 'spot', symbol: SYMBOL, orders: [quote('buy', '89995.3'), quote('sell', '90040.1')] },
    ]);
  });
});
