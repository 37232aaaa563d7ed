// The activity log: one line per intent, execution event and trading-state change, with fields, not prose; repeated
// denials folded into counts.
import { describe, expect, it } from '@jest/globals';
import { ActivityLog } from '../../../src/app/activity-log.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Intent } from '../../../src/domain/intent.js';
import { ManualClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

function logged(feed: (log: ActivityLog) => void, clock?: ManualClock): Array<Record<string, unknown>> {
  let text = '';
  const logger = createLogger({ level: 'info', base: {}, destination: { write: (s: string) => void (text += s) } });
  feed(new ActivityLog(logger, clock));
  return text
    .split('\n')
    .filter((l) => l)
    .map((l) => {
      const { time: _time, ...rest } = JSON.parse(l) as Record<string, unknown>;
      return rest;
    });
}

const base = { strategyId: 'grid', surface: 'futures' as const, symbol: 'cmt_ethusdt', clientOid: 'sx_grid_7', atMs: 1 };

describe('activity log', () => {
  it('an intent: strategy, kind, symbol and how many orders it names', () => {
    const size = Decimal.from('0.1');
    const intents: Intent[] = [
      {
        kind: 'place',
        strategyId: 'mm',
        surface: 'spot',
        symbol: 'BTCUSDT_SPBL',
        orders: [
          { side: 'buy', kind: 'limit', timeInForce: 'gtc', price: Decimal.from('1'), size },
          { side: 'sell', kind: 'market', timeInForce: 'gtc', size },
        ],
      },
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
      {
        ...base,
        type: 'partially-filled',
        orderId: '11',
        filledSize: Decimal.from('0.05'),
        avgPrice: Decimal.from('3000.5'),
        side: 'buy',
        positionSide: 'long',
        reduceOnly: false,
      },
      { ...base, type: 'filled', orderId: '11', filledSize: Decimal.from('0.1'), avgPrice: null, side: 'buy', positionSide: 'long', reduceOnly: false },
      { ...base, type: 'canceled', orderId: '12' },
      { ...base, type: 'triggered', orderId: '13' },
      {
        type: 'denied',
        strategyId: 'grid',
        surface: 'futures',
        symbol: 'cmt_ethusdt',
        atMs: 1,
        reason: 'price-band',
        detail: 'price 1 is 99 % from 3000 (band 2 %)',
      },
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
      {
        level: 'info',
        ...order,
        event: 'partially-filled',
        clientOid: 'sx_grid_7',
        orderId: '11',
        filledSize: '0.05',
        avgPrice: '3000.5',
        msg: 'order partially filled',
      },
      { level: 'info', ...order, event: 'filled', clientOid: 'sx_grid_7', orderId: '11', filledSize: '0.1', avgPrice: null, msg: 'order filled' },
      { level: 'info', ...order, event: 'canceled', clientOid: 'sx_grid_7', orderId: '12', msg: 'order canceled' },
      { level: 'info', ...order, event: 'triggered', clientOid: 'sx_grid_7', orderId: '13', msg: 'trigger order triggered' },
      {
        level: 'info',
        ...order,
        event: 'denied',
        reason: 'price-band',
        detail: 'price 1 is 99 % from 3000 (band 2 %)',
        repeats: 'counted for 60 s',
        msg: 'order denied',
      },
      {
        level: 'warn',
        component: 'activity',
        event: 'trading-state',
        state: 'halted',
        reason: 'kill-switch:order-rate: more than 300 orders in a minute',
        msg: 'trading state changed',
      },
      { level: 'info', component: 'activity', event: 'trading-state', state: 'active', reason: 'kill-switch:order-rate reset', msg: 'trading state changed' },
    ]);
  });

  describe('repeated denials', () => {
    const denied = (atMs: number, over: Partial<Extract<ExecutionEvent, { type: 'denied' }>> = {}): ExecutionEvent => ({
      type: 'denied',
      strategyId: 'grid',
      surface: 'futures',
      symbol: 'cmt_ethusdt',
      atMs,
      reason: 'halted',
      detail: 'kill-switch:drawdown: drawdown 12 %',
      ...over,
    });
    const place: Intent = {
      kind: 'place',
      strategyId: 'grid',
      surface: 'futures',
      symbol: 'cmt_ethusdt',
      orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: Decimal.from('3000'), size: Decimal.from('0.1') }],
    };
    const halted: ExecutionEvent = { type: 'trading-state', atMs: 1000, state: 'halted', reason: 'kill-switch:drawdown: drawdown 12 %' };
    const active: ExecutionEvent = { type: 'trading-state', atMs: 30_000, state: 'active', reason: 'kill-switch:drawdown reset' };

    it('100 denials while halted: the first one logged, then one summary with the count of 100 when the state changes', () => {
      const clock = new ManualClock(1000);
      const lines = logged((a) => {
        a.event(halted);
        for (let i = 0; i < 100; i++) {
          clock.advance(200);
          a.intent(place);
          a.event(denied(clock.now()));
        }
        a.event(active);
      }, clock);
      const between = lines.slice(1, -1);
      // The first intent and denial, then the summary.
      expect(between.length).toBeLessThanOrEqual(3);
      expect(between.filter((l) => l.event === 'denied')).toEqual([
        {
          level: 'info',
          component: 'activity',
          event: 'denied',
          strategy: 'grid',
          surface: 'futures',
          symbol: 'cmt_ethusdt',
          reason: 'halted',
          detail: 'kill-switch:drawdown: drawdown 12 %',
          repeats: 'counted until the trading state changes',
          msg: 'order denied',
        },
      ]);
      expect(between.filter((l) => l.event === 'denials')).toEqual([
        {
          level: 'info',
          component: 'activity',
          event: 'denials',
          cause: 'trading-state',
          sinceMs: 1200,
          denied: 100,
          folded: 99,
          intentsFolded: 99,
          byReason: { halted: 100 },
          byStrategy: { grid: 100 },
          msg: 'orders denied since the previous summary',
        },
      ]);
      expect(lines.at(-1)).toMatchObject({ event: 'trading-state', state: 'active' });
      // After the change, a denial is news again.
      expect(
        logged((a) => {
          a.event(denied(1));
          a.event(denied(2));
          a.event(active);
          a.event(denied(3));
        }).map((l) => l.event),
      ).toEqual(['denied', 'denials', 'trading-state', 'denied']);
    });

    it('while a halt goes on, a summary every 60 s of the clock (none while nothing is folded), and the rest at close', () => {
      const clock = new ManualClock(0);
      const lines = logged((a) => {
        for (let i = 1; i <= 150; i++) {
          clock.set(i * 1000);
          a.event(denied(clock.now(), { strategyId: i % 3 ? 'grid' : 'mm' }));
        }
        a.close();
        // Nothing waits after close.
        clock.advance(600_000);
      }, clock);
      expect(lines.map((l) => [l.event, l.cause ?? null, l.denied ?? null])).toEqual([
        ['denied', null, null],
        ['denied', null, null],
        ['denials', 'periodic', 61],
        ['denials', 'periodic', 60],
        ['denials', 'close', 29],
      ]);
      expect(lines[2]).toMatchObject({ sinceMs: 1000, folded: 59, byReason: { halted: 61 }, byStrategy: { grid: 41, mm: 20 } });
      expect(lines.slice(2).reduce((n, l) => n + (l.denied as number), 0)).toBe(150);
    });

    it('a denial about the order folds for 60 s per strategy, symbol and reason; an accepted order of the same ends the run', () => {
      const clock = new ManualClock(0);
      const cap = (atMs: number, over: Partial<Extract<ExecutionEvent, { type: 'denied' }>> = {}) =>
        denied(atMs, { reason: 'max-notional-order', detail: 'notional 5000 above 1000', ...over });
      const lines = logged((a) => {
        a.event(cap(0));
        a.event(cap(10_000));
        a.event(cap(11_000, { symbol: 'cmt_btcusdt' }));
        a.event(cap(12_000, { reason: 'price-band' }));
        a.event(cap(59_999));
        a.event(cap(60_000));
        a.event({
          type: 'accepted',
          strategyId: 'grid',
          surface: 'futures',
          symbol: 'cmt_ethusdt',
          clientOid: 'sx_grid_8',
          orderId: '21',
          trigger: false,
          atMs: 61_000,
        });
        a.event(cap(62_000));
        // A place intent is never folded for a denial about the order.
        a.intent(place);
      }, clock);
      expect(lines.map((l) => [l.event, l.symbol ?? null, l.reason ?? null, l.cause ?? null])).toEqual([
        ['denied', 'cmt_ethusdt', 'max-notional-order', null],
        ['denied', 'cmt_btcusdt', 'max-notional-order', null],
        ['denied', 'cmt_ethusdt', 'price-band', null],
        ['denied', 'cmt_ethusdt', 'max-notional-order', null],
        ['denials', null, null, 'accepted'],
        ['accepted', 'cmt_ethusdt', null, null],
        ['denied', 'cmt_ethusdt', 'max-notional-order', null],
        ['intent', 'cmt_ethusdt', null, null],
      ]);
      expect(lines[4]).toMatchObject({ sinceMs: 0, denied: 6, folded: 2, byReason: { 'max-notional-order': 5, 'price-band': 1 } });
      expect(lines[0]).toMatchObject({ repeats: 'counted for 60 s' });
    });

    it("a fence is an order's run: it lifts without a change of trading state, and the orders accepted after it are logged, their intents too", () => {
      const clock = new ManualClock(0);
      const accepted = (atMs: number): ExecutionEvent => ({
        type: 'accepted',
        strategyId: 'grid',
        surface: 'futures',
        symbol: 'cmt_ethusdt',
        clientOid: `sx_grid_${atMs}`,
        orderId: String(atMs),
        trigger: false,
        atMs,
      });
      const lines = logged((a) => {
        a.intent(place);
        a.event(denied(0, { reason: 'fenced', detail: 'an order with an unknown outcome' }));
        a.intent(place);
        a.event(denied(1000, { reason: 'fenced', detail: 'an order with an unknown outcome' }));
        // The fence lifts (an order settled): no trading-state event.
        for (const atMs of [30_000, 3_600_000]) {
          clock.set(atMs);
          a.intent(place);
          a.event(accepted(atMs));
        }
      }, clock);
      expect(lines.map((l) => [l.event, l.reason ?? l.cause ?? null])).toEqual([
        ['intent', null],
        ['denied', 'fenced'],
        ['intent', null],
        ['intent', null],
        ['denials', 'accepted'],
        ['accepted', null],
        ['intent', null],
        ['accepted', null],
      ]);
      expect(lines[1]).toMatchObject({ repeats: 'counted for 60 s' });
    });
  });
});
