// futures-grid through the real strategy runner (the sextant/testing harness), run by `sextant test-strategy`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StrategyHarness } from 'sextant/testing';
import strategy from './index.js';

const SYMBOL = 'cmt_ethusdt';

describe('futures-grid', () => {
  it('bids on each level under the centre, and asks once for the protection of its long', () => {
    const h = new StrategyHarness(strategy, { symbols: [SYMBOL], params: { levels: 3, stepBps: 100, size: '0.01', stopLossSteps: 1 } });
    h.setTicker(SYMBOL, { last: '3000' });
    const out = h.market();
    assert.deepEqual(
      out.map((i) => i.kind),
      ['place', 'protect'],
    );
    const orders = out[0]!.orders as Array<{ side: string; price: string; size: string; positionSide: string }>;
    assert.deepEqual(
      orders.map((o) => [o.side, o.price, o.size, o.positionSide]),
      [
        ['buy', '2970', '0.01', 'long'],
        ['buy', '2940', '0.01', 'long'],
        ['buy', '2910', '0.01', 'long'],
      ],
    );
    // The stop-loss one step under the lowest level; no trailing stop unless asked for.
    assert.deepEqual(out[1], { kind: 'protect', strategyId: 't', symbol: SYMBOL, positionSide: 'long', stopLoss: '2880', trailing: null });
    // Asked for once: the same price again asks for nothing new.
    assert.deepEqual(
      h.market().filter((i) => i.kind === 'protect'),
      [],
    );
  });
});
