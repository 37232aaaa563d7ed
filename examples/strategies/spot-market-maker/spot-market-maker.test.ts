// spot-market-maker through the real strategy runner (the sextant/testing harness), run by `sextant test-strategy`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal, type Balance } from 'sextant/strategy';
import { StrategyHarness, openOrder } from 'sextant/testing';
import strategy from './index.js';

const SYMBOL = 'BTCUSDT_SPBL';
const btc = (total: string): Balance => ({ surface: 'spot', asset: 'BTC', available: Decimal.from(total), frozen: Decimal.ZERO, total: Decimal.from(total) });

function harness() {
  const h = new StrategyHarness(strategy, {
    symbols: [SYMBOL],
    params: { halfSpreadBps: 10, size: '0.002', maxInventory: '0.004', skewBps: 0, toleranceBps: 3 },
  });
  h.balances = [btc('1')];
  h.setTicker(SYMBOL, { last: '90000' });
  return h;
}

describe('spot-market-maker', () => {
  it('quotes both sides post-only, 10 bps around the last trade, on the tick', () => {
    assert.deepEqual(harness().market(), [
      {
        kind: 'place',
        strategyId: 't',
        surface: 'spot',
        symbol: SYMBOL,
        orders: [
          { side: 'buy', kind: 'limit', timeInForce: 'post_only', price: '89910', size: '0.002' },
          { side: 'sell', kind: 'limit', timeInForce: 'post_only', price: '90090', size: '0.002' },
        ],
      },
    ]);
  });

  it('leaves quotes near their target alone, and pulls the bid once the inventory is full', () => {
    const h = harness();
    h.market();
    h.openOrders = [
      openOrder(SYMBOL, { clientOid: 'b1', side: 'buy', price: '89910', size: '0.002' }),
      openOrder(SYMBOL, { clientOid: 'a1', side: 'sell', price: '90090', size: '0.002' }),
    ];
    assert.deepEqual(h.market(), []);
    // Bought 0.004 BTC since the start: the bid would add to a full inventory.
    h.balances = [btc('1.004')];
    assert.deepEqual(h.market(), [{ kind: 'cancel', strategyId: 't', surface: 'spot', symbol: SYMBOL, clientOids: ['b1'] }]);
  });
});
