// The activity log: one line per intent, execution event and trading-state change, with fields, not prose.
import { describe, expect, it } from '@jest/globals';
import { ActivityLog } from '../../../src/app/activity-log.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Intent } from '../../../src/domain/intent.js';
import { createLogger } from '../../../src/util/logger.js';

function logged(feed: (log: ActivityLog) => void): Array<Record<string, unknown>> {
  let text = '';
  const logger = createLogger({ level: 'info', base: {}, destination: { write: (s: string) => void (text += s) } });
  feed(new ActivityLog(logger));
  return text.split('\n').filter((l) => l).map((l) => {
    const { time: _time, ...rest } = JSON.parse(l) as Record<string, unknown>;
    return rest;
  });
}

const base = { strategyId: 'grid', surface: 'futures' as const, symbol: 'cmt_ethusdt', clientOid: 'sx_grid_7', atMs: 1 };

describe('activity log', () => {
  it('an intent: strategy, kind, symbol and how many orders it names', () => {
    const size = Decimal.from('0.1');
    const intents: Intent[] = [
      { kind: 'place', strategyId: 'mm', surface: 'spot', symbol: 'BTCUSDT_SPBL', orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: Decimal.from('1'), size }, { side: 'sell', kind: 'market', timeInForce: 'gtc', size }] },
      { kind: 'cancel', strategyId: 'mm', surface: 'spot', symbol: 'BTCUSDT_SPBL', orderIds: ['1'], clientOids: ['a', 'b'] },
      { kind: 'cancel-all', strategyId: 'mm', surface: 'spot', symbol: 'BTCUSDT_SPBL' },
      { kind: 'place-trigger', strategyId: 'grid', symbol: 'cmt_ethusdt', positionSide: 'long', reduceOnly: true, size, triggerPrice: Decimal.from('3000') },
      { kind: 'cancel-trigger', strategyId: 'grid', symbol: 'cmt_ethusdt', orderId: '9' },
    ];
    const common = { level: 'info', component: 'activity', event: 'intent', msg: 'intent taken up' };
    expect(logged((a) => intents.forEach(a.intent))).toEqual([
      { ...common, strategy: 'mm', kind: 'place', surface: 'spot', symbol: 'BTCUSDT_SPBL', orders: 2 },
      { ...common, strategy: 'mm', kind: 'cancel', surface: 'spot', symbol: 'BTCUSDT_SPBL', orders: 3 },
      { ...common, strategy: 'mm', kind: 'cancel-all', surface: 'spot', symbol: 'BTCUSDT_SPBL' },
      { ...common, strategy: 'grid', kind: 'place-trigger', surface: 'futures', symbol: 'cmt_ethusdt', orders: 1 },
      { ...common, strategy: 'grid', kind: 'cancel-trigger', surface: 'futures', symbol: 'cmt_ethusdt', orders: 1 },
    ]);
  });

  it('each order event once, with its fields; events logged where they are concluded are not repeated', () => {
    const events: ExecutionEvent[] = [
      { ...base, type: 'accepted', orderId: '11', trigger: true },
      { ...base, type: 'rejected', code: '40017', reason: 'insufficient margin' },
      { ...base, type: 'rejected', code: undefined, reason: 'refused' },
      { ...base, type: 'partially-filled', orderId: '11', filledSize: Decimal.from('0.05'), avgPrice: Decimal.from('3000.5'), side: 'buy', positionSide: 'long', reduceOnly: false },
      { ...base, type: 'filled', orderId: '11', filledSize: Decimal.from('0.1'), avgPrice: null, side: 'buy', positionSide: 'long', reduceOnly: false },
      { ...base, type: 'canceled', orderId: '12' },
      { ...base, type: 'triggered', orderId: '13' },
      { type: 'denied', strategyId: 'grid', surface: 'futures', symbol: 'cmt_ethusdt', atMs: 1, reason: 'price-band', detail: 'price 1 is 99 % from 3000 (band 2 %)' },
      { type: 'trading-state', atMs: 1, state: 'halted', reason: 'kill-switch:order-rate: more than 300 orders in a minute' },
      { type: 'trading-state', atMs: 2, state: 'active', reason: 'kill-switch:order-rate reset' },
      { ...base, type: 'unknown', reason: 'timeout' },
      { ...base, type: 'resolved', orderId: '11', state: 'open' },
      { ...base, type: 'lost', reason: 'not found' },
      { ...base, type: 'vanished', state: 'vanished', reason: 'gone' },
    ];
    const order = { component: 'activity', strategy: 'grid', surface: 'futures', symbol: 'cmt_ethusdt' };
    expect(logged((a) => events.forEach(a.event))).toEqual([
      { level: 'info', ...order, event: 'accepted', clientOid: 'sx_grid_7', orderId: '11', trigger: true, msg: 'order accepted' },
      { level: 'info', ...order, event: 'rejected', clientOid: 'sx_grid_7', code: '40017', reason: 'insufficient margin', msg: 'order rejected' },
      { level: 'info', ...order, event: 'rejected', clientOid: 'sx_grid_7', code: null, reason: 'refused', msg: 'order rejected' },
      { level: 'info', ...order, event: 'partially-filled', clientOid: 'sx_grid_7', orderId: '11', filledSize: '0.05', avgPrice: '3000.5', msg: 'order partially filled' },
      { level: 'info', ...order, event: 'filled', clientOid: 'sx_grid_7', orderId: '11', filledSize: '0.1', avgPrice: null, msg: 'order filled' },
      { level: 'info', ...order, event: 'canceled', clientOid: 'sx_grid_7', orderId: '12', msg: 'order canceled' },
      { level: 'info', ...order, event: 'triggered', clientOid: 'sx_grid_7', orderId: '13', msg: 'trigger order triggered' },
      { level: 'info', ...order, event: 'denied', reason: 'price-band', detail: 'price 1 is 99 % from 3000 (band 2 %)', msg: 'order denied' },
      { level: 'warn', component: 'activity', event: 'trading-state', state: 'halted', reason: 'kill-switch:order-rate: more than 300 orders in a minute', msg: 'trading state changed' },
      { level: 'info', component: 'activity', event: 'trading-state', state: 'active', reason: 'kill-switch:order-rate reset', msg: 'trading state changed' },
    ]);
  });
});
