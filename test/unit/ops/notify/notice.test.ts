// Which control events become notices, under which topic, and how they read.
import { describe, expect, it } from '@jest/globals';
import { noticeOf, topicOf } from '../../../../src/ops/notify/notice.js';
import type { ControlEvent } from '../../../../src/ops/control.js';
import { events } from './fake-control.js';

const order = (type: string): ControlEvent => ({ kind: 'order', atMs: 1, text: `order ${type}`, data: { type, strategyId: 'mm' } });

describe('topicOf', () => {
  it('classifies each kind of control event', () => {
    expect(topicOf(events.fill(1))).toBe('fill');
    expect(topicOf(events.halted(1))).toBe('kill-switch');
    expect(topicOf(events.active(1))).toBe('kill-switch');
    expect(topicOf(events.faulted(1))).toBe('strategy-fault');
    expect(topicOf({ kind: 'strategy', atMs: 1, text: 'mm paused', data: { id: 'mm', change: 'paused', reason: '' } })).toBe('strategy');
    expect(noticeOf(events.faulted(1))!.strategyId).toBe('grid');
    expect(topicOf({ kind: 'command', atMs: 1, text: 'halt by api', data: {} })).toBe('command');
    expect(topicOf(events.equity(1))).toBeNull();
    expect(
      ['rejected', 'denied', 'unknown', 'lost', 'resolved', 'vanished', 'accepted', 'canceled', 'filled', 'triggered'].map((t) => topicOf(order(t))),
    ).toEqual(['rejection', 'rejection', 'unknown-order', 'unknown-order', 'reconciliation', 'reconciliation', null, null, null, null]);
    // The execution event's type may also come as `event`.
    expect(topicOf({ kind: 'order', atMs: 1, text: 'x', data: { event: 'rejected' } })).toBe('rejection');
  });
});

describe('noticeOf', () => {
  it("heads the event's line with what it is, and keeps its strategy and the event", () => {
    const e = events.rejected(5, 'grid', 2);
    expect(noticeOf(e)).toEqual({
      topic: 'rejection',
      text: 'Rejected: grid order sx_grid_2 rejected: insufficient balance',
      atMs: 5,
      strategyId: 'grid',
      event: e,
    });
    expect(noticeOf(events.halted(5))!.text).toBe('KILL SWITCH: trading halted: drawdown 12% above 10%');
    expect(noticeOf({ kind: 'state', atMs: 5, text: 'near liquidation', data: { state: 'reducing' } })!.text).toBe('Trading reducing only: near liquidation');
    expect(noticeOf(events.unknown(5))!.text).toBe('Order outcome unknown: sx_mm_7 outcome unknown: timeout');
    expect(noticeOf(events.vanished(5))!.text).toBe('Reconciliation: sx_mm_9 vanished');
    expect(noticeOf(events.equity(5))).toBeNull();
  });
});
