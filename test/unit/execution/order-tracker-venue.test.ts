// The order tracker against the in-process simulator: a futures order that leaves current orders is resolved
// exactly through the order's detail (F18), canceled by the venue (not by us) as canceled and filled as filled
// with its fills (F20) recorded once; trigger orders, position stops included, are looked up among current trigger
// orders (F21) and trigger history (F22), never through F5 or F18, and a stop's trigger price is read back from the
// venue.
import Database from '../../../src/journal/sqlite-driver.js';
import { describe, expect, it } from '@jest/globals';
import type { ItemResult, TpSlChange } from '../../../src/exchange/client.js';
import { ExchangeError } from '../../../src/exchange/errors.js';
import { SYMBOL, d, parts, venue, type CoreParts } from './stop-rig.js';

const fillsOf = (p: CoreParts, clientOid: string) => {
  const db = new Database(p.file!, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM fills WHERE client_oid = ?').get(clientOid) as { n: number }).n;
  } finally {
    db.close();
  }
};
const eventsOf = (p: CoreParts, clientOid: string) => p.events.filter((e) => 'clientOid' in e && e.clientOid === clientOid).map((e) => e.type);

async function bid(p: CoreParts, price: string) {
  await p.executor.submit({
    kind: 'place',
    strategyId: 'g',
    surface: 'futures',
    symbol: SYMBOL,
    orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: d(price), size: d('0.01'), positionSide: 'long' }],
  });
  return p.journal.allOrders().at(-1)!;
}

describe('order tracker: futures orders that leave current orders', () => {
  it('canceled by the venue (not by us): resolved as canceled through the order detail', async () => {
    const v = venue('90000');
    const p = parts(v);
    const row = await bid(p, '89000');
    expect(row.state).toBe('open');
    // The venue cancels every normal order (as a liquidation does).
    expect(v.sim.engine.cancelAllOrders('normal', SYMBOL)).toHaveLength(1);
    p.calls.length = 0;
    const report = await p.tracker.reconcile();
    expect(p.calls).toEqual(['openOrders', 'order']);
    expect(p.journal.order(row.clientOid)).toMatchObject({ state: 'canceled', filledSize: '0' });
    expect(eventsOf(p, row.clientOid)).toEqual(['accepted', 'canceled']);
    expect(report.fills).toBe(0);
  });

  it('filled: resolved as filled, its fills recorded once however often it is looked at', async () => {
    const v = venue('90000');
    const p = parts(v);
    const row = await bid(p, '89900');
    v.trade('89800');
    expect(v.sim.engine.rawOrder(row.orderId!)!.status).toBe('filled');
    const first = await p.tracker.reconcile();
    expect(first.fills).toBe(1);
    expect(p.journal.order(row.clientOid)).toMatchObject({ state: 'filled', filledSize: '0.01', avgPrice: '89900' });
    // Looked at again (a final order is not, and the executor's fill reading after a cancel is not double counted).
    await p.tracker.reconcile();
    await p.tracker.settle([row.clientOid]);
    expect(fillsOf(p, row.clientOid)).toBe(1);
    expect(eventsOf(p, row.clientOid)).toEqual(['accepted', 'filled']);
  });
});

describe('order tracker: trigger orders', () => {
  it('canceled by the venue: found in trigger history (F22), not through current orders or the order detail', async () => {
    const v = venue('90000');
    const p = parts(v);
    v.long('0.01');
    await p.executor.submit({
      kind: 'place-trigger',
      strategyId: 'g',
      symbol: SYMBOL,
      positionSide: 'long',
      reduceOnly: true,
      size: d('0.01'),
      triggerPrice: d('89000'),
    });
    const row = p.journal.allOrders().at(-1)!;
    expect(row).toMatchObject({ isTrigger: true, state: 'untriggered' });
    p.calls.length = 0;
    await p.tracker.reconcile();
    expect(p.calls).toEqual(['triggerOrders']);
    expect(p.journal.order(row.clientOid)!.state).toBe('untriggered');

    v.sim.engine.cancelTrigger(SYMBOL, row.orderId!);
    p.calls.length = 0;
    await p.tracker.reconcile();
    expect(p.calls).toEqual(['triggerOrders', 'triggerOrderHistory']);
    expect(p.journal.order(row.clientOid)!.state).toBe('canceled');
    expect(eventsOf(p, row.clientOid)).toEqual(['accepted', 'canceled']);
  });

  it('a position stop that fired: filled, its fills recorded once, told as triggered then filled', async () => {
    const v = venue('90000');
    const p = parts(v);
    await p.executor.submit({ kind: 'protect', strategyId: 'g', symbol: SYMBOL, positionSide: 'long', stopLoss: d('89900') });
    v.long('0.01');
    p.observe();
    await p.stops.sync();
    const row = p.journal.allOrders().find((r) => r.role === 'stop-loss')!;
    v.trade('89850');
    expect(v.sim.positionsNow(SYMBOL)).toEqual([]);
    p.calls.length = 0;
    await p.tracker.reconcile();
    await p.tracker.reconcile();
    expect(p.calls.filter((c) => c === 'order' || c === 'openOrders')).toEqual([]);
    expect(p.journal.order(row.clientOid)).toMatchObject({ state: 'filled', filledSize: '0.01' });
    expect(fillsOf(p, row.clientOid)).toBe(1);
    expect(eventsOf(p, row.clientOid)).toEqual(['accepted', 'triggered', 'filled']);
  });

  it("a stop's move whose answer was lost: the trigger price the venue holds is read back", async () => {
    const v = venue('90000');
    const p = parts(v, {
      overrides: {
        modifyTpSl: async (change: TpSlChange): Promise<ItemResult> => {
          await v.sim.modifyTpSl(change);
          return { outcome: 'unknown', clientOid: null, orderId: change.orderId, error: new ExchangeError('timeout', 'no answer', { endpoint: 'F24' }) };
        },
      },
    });
    await p.executor.submit({ kind: 'protect', strategyId: 'g', symbol: SYMBOL, positionSide: 'long', stopLoss: d('89000') });
    v.long('0.01');
    p.observe();
    await p.stops.sync();
    await p.executor.submit({ kind: 'protect', strategyId: 'g', symbol: SYMBOL, positionSide: 'long', stopLoss: d('89500') });
    const row = p.journal.allOrders().find((r) => r.role === 'stop-loss')!;
    expect(row.triggerPrice).toBe('89000');
    expect(row.lastError).toContain('no answer');
    await p.tracker.reconcile();
    expect(p.journal.order(row.clientOid)!.triggerPrice).toBe('89500');
    expect(p.journal.history(row.clientOid).at(-1)!.event).toBe('venue holds the trigger at 89500');
  });
});
