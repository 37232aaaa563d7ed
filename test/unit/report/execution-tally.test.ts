// The report's tally of execution events: refusals by strategy and reason, denials by reason, venue orders' owners
// while they may fill.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { ExecutionTally } from '../../../src/report/execution-tally.js';

const base = { surface: 'spot' as const, symbol: 'BTCUSDT_SPBL', atMs: 1 };

describe('ExecutionTally', () => {
  it('counts refusals per strategy and reason, denials by reason, and keeps whose each order is', () => {
    const tally = new ExecutionTally();
    tally.observe({ ...base, type: 'accepted', strategyId: 'mm', clientOid: 'a', orderId: '11', trigger: false });
    tally.observe({ ...base, type: 'resolved', strategyId: 'grid', clientOid: 'b', orderId: '12', state: 'open' });
    tally.observe({ ...base, type: 'rejected', strategyId: 'mm', clientOid: 'c', code: '40762', reason: 'insufficient balance' });
    tally.observe({ ...base, type: 'rejected', strategyId: 'grid', clientOid: 'd', code: '40762', reason: 'insufficient balance' });
    tally.observe({ ...base, type: 'denied', strategyId: 'mm', reason: 'price-band', detail: 'x' });
    tally.observe({ ...base, type: 'denied', strategyId: 'mm', reason: 'price-band', detail: 'y' });
    expect(tally.ownerOf('11')).toBe('mm');
    expect(tally.ownerOf('12')).toBe('grid');
    expect(tally.ownerOf('13')).toBeUndefined();
    const all = tally.rejected();
    expect(Object.values(all).reduce((a, b) => a + b, 0)).toBe(2);
    expect(Object.values(tally.rejected('mm')).reduce((a, b) => a + b, 0)).toBe(1);
    expect(tally.rejected('nobody')).toEqual({});
    expect(tally.denied()).toEqual({ 'price-band': 2 });
  });

  it('forgets the owner of an order once it is final (filled or canceled); counts stay by strategy and reason', () => {
    const tally = new ExecutionTally();
    tally.observe({ ...base, type: 'accepted', strategyId: 'mm', clientOid: 'a', orderId: '21', trigger: false });
    tally.observe({ ...base, type: 'accepted', strategyId: 'mm', clientOid: 'b', orderId: '22', trigger: false });
    tally.observe({ ...base, type: 'accepted', strategyId: 'mm', clientOid: 'c', orderId: '23', trigger: false });
    tally.observe({
      ...base,
      type: 'partially-filled',
      strategyId: 'mm',
      clientOid: 'a',
      orderId: '21',
      filledSize: Decimal.from('1'),
      avgPrice: null,
      side: 'buy',
      positionSide: null,
      reduceOnly: false,
    });
    tally.observe({
      ...base,
      type: 'filled',
      strategyId: 'mm',
      clientOid: 'b',
      orderId: '22',
      filledSize: Decimal.from('1'),
      avgPrice: null,
      side: 'buy',
      positionSide: null,
      reduceOnly: false,
    });
    tally.observe({ ...base, type: 'canceled', strategyId: 'mm', clientOid: 'c', orderId: '23' });
    expect(['21', '22', '23'].map((id) => tally.ownerOf(id))).toEqual(['mm', undefined, undefined]);
    for (const [strategyId, reason] of [
      ['a', 'post only'],
      ['b', 'post only'],
      ['a', 'insufficient balance'],
      ['b', 'post only'],
    ] as const) {
      tally.observe({ ...base, type: 'rejected', strategyId, clientOid: 'x', code: undefined, reason });
    }
    expect(tally.rejected()).toEqual({ 'post-only': 3, insufficient: 1 });
    expect(Object.keys(tally.rejected())).toEqual(['post-only', 'insufficient']);
    expect(tally.rejected('a')).toEqual({ insufficient: 1, 'post-only': 1 });
    expect(Object.keys(tally.rejected('a'))).toEqual(['insufficient', 'post-only']);
  });
});
