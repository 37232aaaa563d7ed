// rsi-reversion through the real strategy runner (the sextant/testing harness), run by `sextant test-strategy`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StrategyHarness, makeBars } from 'sextant/testing';
import strategy from './index.js';

const SYMBOL = 'BTCUSDT_SPBL';
// RSI(3) of these 1-minute closes (Wilder): none for the first three, then 100, 40, 16, 8.42, 46.46, 67.01, 79.07.
const bars = makeBars(SYMBOL, '1m', ['90000', '90100', '90200', '90300', '90000', '89500', '89000', '89500', '90000', '90500']);

function harness() {
  const h = new StrategyHarness(strategy, { symbols: [SYMBOL], params: { period: 3, buyBelow: 30, sellAbove: 70, quoteAmount: '1000' }, timeframes: ['1m'] });
  h.setTicker(SYMBOL, { last: '89500', bid: '89499.9', ask: '89500' });
  return h;
}

describe('rsi-reversion', () => {
  it('buys at the bid once oversold, for the quote amount rounded down to the step', () => {
    const h = harness();
    assert.deepEqual(h.bars(bars.slice(0, 5)), [[], [], [], [], []]);
    assert.deepEqual(h.bar(bars[5]!), [
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: '89499.9', size: '0.011173' }],
      },
    ]);
  });

  it('sells what its fills hold at the ask once the RSI has recovered', () => {
    const h = harness();
    h.bars(bars.slice(0, 5));
    h.fill(SYMBOL, { side: 'buy', size: '0.005', price: '89499.9' });
    assert.deepEqual(h.bars(bars.slice(5, 9)), [[], [], [], []]);
    h.setTicker(SYMBOL, { last: '90500', bid: '90499.9', ask: '90500' });
    assert.deepEqual(h.bar(bars[9]!), [
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: '90500', size: '0.005' }],
      },
    ]);
  });
});
