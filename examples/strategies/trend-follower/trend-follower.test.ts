// trend-follower through the real strategy runner (the sextant/testing harness), run by `sextant test-strategy`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StrategyHarness } from 'sextant/testing';
import strategy from './index.js';

const SYMBOL = 'cmt_ethusdt';

/** The harness after one tickers poll at each price; the intents of the last. */
function pollAt(h: StrategyHarness, prices: string[]) {
  let out: ReturnType<StrategyHarness['market']> = [];
  for (const last of prices) {
    h.setTicker(SYMBOL, { last });
    out = h.market();
  }
  return out;
}

describe('trend-follower', () => {
  it('nothing while the fast average stays under the slow one; on the cross up a long at market, its stop-loss and take-profit', () => {
    const h = new StrategyHarness(strategy, { symbols: [SYMBOL], params: { fast: 2, slow: 4, size: '0.05', stopLossBps: 150, takeProfitBps: 300 } });
    assert.deepEqual(pollAt(h, ['3000', '2990', '2980', '2970', '2960']), []);
    const out = pollAt(h, ['3100']);
    assert.deepEqual(
      out.map((i) => i.kind),
      ['place', 'place-trigger', 'place-trigger'],
    );
    // 150 bps under and 300 bps over the entry's reference, 3100.
    assert.deepEqual(
      out.slice(1).map((i) => i.triggerPrice),
      ['3053.5', '3193'],
    );
  });

  it('refuses a fast window not shorter than the slow one', () => {
    assert.equal(strategy.params.safeParse({ fast: 30, slow: 10 }).success, false);
  });
});
