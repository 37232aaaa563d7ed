import { describe, expect, it } from '@jest/globals';
import type { JournalOrder } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { listOrders, settleOrder } from '../../../src/app/orders-command.js';
import { journalRow } from '../../fixtures/journal-row.js';

const row = (clientOid: string, over: Partial<JournalOrder> = {}) =>
  journalRow(clientOid, { strategyId: 'mm', price: '100', size: '0.5', state: 'unknown', createdAtMs: 1000, updatedAtMs: 1000, absentChecks: 2, ...over });

describe('sextant orders', () => {
  it('lists the orders in flight with their state, age and lookups', () => {
    const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    j.insertOrders([row('sx_mm_1'), row('sx_mm_2', { state: 'canceled' })]);
    const lines = listOrders(j, 61_000, false);
    expect(lines[0]).toMatch(/^client id\s+strategy\s+symbol/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^sx_mm_1\s+mm\s+BTCUSDT_SPBL\s+buy\s+100\s+0\.5\s+0\s+unknown\s+-\s+60\s+2$/);
    expect(listOrders(j, 61_000, true)).toHaveLength(3);
    j.close();
  });

  it('settles an order by hand, by client id or venue id, with the reason in its history; never a final one', () => {
    const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    j.insertOrders([row('sx_mm_1'), row('sx_mm_2', { state: 'open', orderId: '8389765489680951453' })]);
    expect(settleOrder(j, 'sx_mm_1', 'vanished', 'the venue was reset', 5000).state).toBe('vanished');
    expect(j.history('sx_mm_1').at(-1)).toEqual({ event: 'settled by an operator as vanished: the venue was reset', state: 'vanished', atMs: 5000 });
    expect(settleOrder(j, '8389765489680951453', 'filled', 'seen filled in the venue UI', 6000)).toMatchObject({
      clientOid: 'sx_mm_2',
      state: 'filled',
      filledSize: '0.5',
    });
    expect(j.activeOrders()).toEqual([]);
    expect(() => settleOrder(j, 'sx_mm_1', 'canceled', 'again', 7000)).toThrow(/already final \(vanished\)/);
    expect(() => settleOrder(j, 'nope', 'canceled', 'x', 7000)).toThrow(/no order nope/);
    j.insertOrders([row('sx_mm_3')]);
    expect(() => settleOrder(j, 'sx_mm_3', 'canceled', '  ', 7000)).toThrow(/--reason is required/);
    j.close();
  });
});
