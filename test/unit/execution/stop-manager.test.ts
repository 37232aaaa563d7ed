// The stop manager against the in-process simulator on a manual clock: a stop placed when the position opens (journal
// first), resized by cancel-then-place when the position changes (never two live stops of one role), a trailing stop
// moved in steps under the per-minute cap and never loosened, stops removed when the position goes flat (a cancel
// that finds nothing confirmed by lookup), the protection and the trailing state kept across a restart, stops of a
// removed strategy canceled, and an unknown F23 outcome resolved by the tracker, not re-sent.
import { describe, expect, it } from '@jest/globals';
import type { ProtectIntent } from '../../../src/domain/intent.js';
import type { ItemResult, TpSlRequest } from '../../../src/exchange/client.js';
import { ExchangeError } from '../../../src/exchange/errors.js';
import { LATCH_DRAWDOWN, LATCH_REDUCE_OPERATOR } from '../../../src/execution/latches.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { SYMBOL, d, parts, venue, type CoreParts, type Venue } from './stop-rig.js';

const protect = (over: Partial<ProtectIntent> = {}): ProtectIntent => ({ kind: 'protect', strategyId: 'g', symbol: SYMBOL, positionSide: 'long', ...over });
const count = (calls: string[], name: string) => calls.filter((c) => c === name).length;
const byRole = <T extends { role?: string | null | undefined }>(xs: T[]) => [...xs].sort((a, b) => String(a.role).localeCompare(String(b.role)));
const stopRows = (p: CoreParts) => p.journal.allOrders().filter((r) => r.role);

/** The positions and the ticker as the streams report them, then a sync. */
async function step(v: Venue, p: CoreParts): Promise<void> {
  p.observe();
  await p.stops.sync();
}

describe('stop manager: placing', () => {
  it('nothing while flat; a stop-loss and a take-profit sized to the position once it opens, written down before they are sent', async () => {
    const v = venue();
    const p = parts(v);
    await p.executor.submit(protect({ stopLoss: d('89000'), takeProfit: d('91000') }));
    await step(v, p);
    expect(await v.stops()).toEqual([]);
    expect(count(p.calls, 'placeTpSl')).toBe(0);

    v.long('0.01');
    await step(v, p);
    expect(byRole(await v.stops())).toEqual([
      { role: 'stop-loss', size: '0.01', trigger: '89000' },
      { role: 'take-profit', size: '0.01', trigger: '91000' },
    ]);
    const rows = byRole(stopRows(p));
    expect(rows.map((r) => [r.role, r.state, r.isTrigger, r.reduceOnly, r.side, r.positionSide, r.size, r.triggerPrice])).toEqual([
      ['stop-loss', 'untriggered', true, true, 'sell', 'long', '0.01', '89000'],
      ['take-profit', 'untriggered', true, true, 'sell', 'long', '0.01', '91000'],
    ]);
    for (const r of rows)
      expect(
        p.journal
          .history(r.clientOid)
          .slice(0, 2)
          .map((h) => [h.event, h.state]),
      ).toEqual([
        ['written', 'sending'],
        ['accepted', 'untriggered'],
      ]);
    expect(p.events.filter((e) => e.type === 'accepted').map((e) => e.type === 'accepted' && e.trigger)).toEqual([true, true]);

    // In line: nothing more is sent.
    p.observe();
    expect(p.stops.pending()).toBe(false);
    await p.stops.sync();
    expect(count(p.calls, 'placeTpSl')).toBe(2);
  });

  it('a malformed protect, or one on a price off the tick, is refused with a reason; nothing is kept', async () => {
    const v = venue();
    const p = parts(v);
    const bad = await p.executor.submit({ ...protect(), stopLoss: '89000' as never });
    expect(bad).toEqual([expect.objectContaining({ type: 'denied', reason: 'malformed-order', detail: 'stopLoss "89000" is not a Decimal' })]);
    const off = await p.executor.submit(protect({ stopLoss: d('89000.05') }));
    expect(off).toEqual([expect.objectContaining({ type: 'denied', reason: 'off-tick' })]);
    expect(p.stops.wanted()).toEqual([]);
  });
});

describe('stop manager: the position changes size', () => {
  it('cancels the stop, and places one of the new size once the cancel is confirmed: never two of one role at once', async () => {
    const v = venue();
    let liveAtPlacing: number[] = [];
    const p = parts(v, {
      overrides: {
        placeTpSl: async (req: TpSlRequest): Promise<ItemResult> => {
          liveAtPlacing.push((await v.stops()).filter((s) => s.role === req.role).length);
          return v.sim.placeTpSl(req);
        },
      },
    });
    await p.executor.submit(protect({ stopLoss: d('89000') }));
    v.long('0.01');
    await step(v, p);
    v.long('0.02');
    p.calls.length = 0;
    await step(v, p);
    expect(p.calls.filter((c) => c === 'cancelTrigger' || c === 'placeTpSl')).toEqual(['cancelTrigger', 'placeTpSl']);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.03', trigger: '89000' }]);
    expect(stopRows(p).map((r) => [r.size, r.state])).toEqual([
      ['0.01', 'canceled'],
      ['0.03', 'untriggered'],
    ]);
    expect(liveAtPlacing).toEqual([0, 0]);

    // Smaller again: the same.
    liveAtPlacing = [];
    v.long('-0.02');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89000' }]);
    expect(liveAtPlacing).toEqual([0]);
  });
});

describe('stop manager: a trailing stop', () => {
  it('follows the best price in steps, at most maxModifiesPerMinute moves a minute (the latest price goes when allowed), never loosened', async () => {
    const v = venue('90000');
    const p = parts(v, { settings: { maxModifiesPerMinute: 2, triggerPriceType: 'last' } });
    await p.executor.submit(protect({ trailing: { distance: d('100'), step: d('50') } }));
    v.long('0.01');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89900' }]);
    const moves = () => count(p.calls, 'modifyTpSl');

    v.trade('90030'); // improves by 30: less than a step
    await step(v, p);
    expect(moves()).toBe(0);
    v.trade('90060'); // by 60 from where the stop was set
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89960' }]);
    v.trade('90120');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '90020' }]);
    expect(moves()).toBe(2);

    // Two moves this minute: the next waits, the latest price wanted goes once the minute allows it.
    v.trade('90200', 5_000);
    await step(v, p);
    v.trade('90260', 5_000);
    await step(v, p);
    expect(moves()).toBe(2);
    expect(p.stops.pending()).toBe(false);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '90020' }]);
    v.trade('90260', 50_000);
    await step(v, p);
    expect(moves()).toBe(3);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '90160' }]);
    expect(stopRows(p)[0]!.triggerPrice).toBe('90160');

    // Falling back: the stop stays where it is.
    v.trade('90200', 60_000);
    await step(v, p);
    expect(moves()).toBe(3);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '90160' }]);
  });

  it('with a fixed stop-loss too, the tighter of the two is the stop', async () => {
    const v = venue('90000');
    const p = parts(v);
    await p.executor.submit(protect({ stopLoss: d('89950'), trailing: { distance: d('100'), step: d('10') } }));
    v.long('0.01');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89950' }]);
    v.trade('90100');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '90000' }]);
  });
});

describe('stop manager: flat', () => {
  it('the venue canceled the stops of the flat position itself: the cancel finds nothing, a lookup confirms them gone', async () => {
    const v = venue();
    const p = parts(v);
    await p.executor.submit(protect({ stopLoss: d('89000'), takeProfit: d('91000') }));
    v.long('0.01');
    await step(v, p);
    v.long('-0.01');
    expect(await v.stops()).toEqual([]);
    p.calls.length = 0;
    await step(v, p);
    expect(count(p.calls, 'cancelTrigger')).toBe(2);
    expect(count(p.calls, 'triggerOrderHistory')).toBeGreaterThan(0);
    expect(count(p.calls, 'placeTpSl')).toBe(0);
    expect(stopRows(p).map((r) => r.state)).toEqual(['canceled', 'canceled']);
    expect(p.journal.activeOrders()).toEqual([]);
    // The protection is still wanted: the next position gets its stops.
    v.long('0.02');
    await step(v, p);
    expect(byRole(await v.stops()).map((s) => s.size)).toEqual(['0.02', '0.02']);
  });

  it('a protect with nothing in it removes the protection: the stops are canceled', async () => {
    const v = venue();
    const p = parts(v);
    await p.executor.submit(protect({ stopLoss: d('89000') }));
    v.long('0.01');
    await step(v, p);
    await p.executor.submit(protect({ stopLoss: null }));
    expect(await v.stops()).toEqual([]);
    expect(stopRows(p).map((r) => r.state)).toEqual(['canceled']);
    expect(p.stops.wanted()).toEqual([]);
  });
});

describe('stop manager: trading states', () => {
  it('reducing: protection passes (it only closes)', async () => {
    const v = venue();
    const p = parts(v);
    p.journal.setLatch(LATCH_REDUCE_OPERATOR, 'test', v.clock.now());
    expect(await p.executor.submit(protect({ stopLoss: d('89000') }))).toEqual([]);
    expect(p.stops.wanted()).toHaveLength(1);
  });

  it('halted: new protection is refused, a removal passes, and the protection already held is kept in line', async () => {
    const v = venue();
    const p = parts(v);
    await p.executor.submit(protect({ stopLoss: d('89000') }));
    v.long('0.01');
    await step(v, p);
    p.journal.setLatch(LATCH_DRAWDOWN, 'test', v.clock.now());
    expect(await p.executor.submit(protect({ stopLoss: d('89500') }))).toEqual([expect.objectContaining({ type: 'denied', reason: 'halted' })]);
    // The position grew (an order in flight when the switch tripped): its stop follows it.
    v.long('0.01');
    await step(v, p);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.02', trigger: '89000' }]);
    expect(await p.executor.submit(protect({ stopLoss: null }))).toEqual([expect.objectContaining({ type: 'canceled' })]);
    expect(await v.stops()).toEqual([]);
  });
});

describe('stop manager: a restart', () => {
  it('keeps the protection and the trailing state', async () => {
    const v = venue('90000');
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const first = parts(v, { journal });
    await first.executor.submit(protect({ trailing: { distance: d('100'), step: d('50') } }));
    v.long('0.01');
    await step(v, first);
    v.trade('90060');
    await step(v, first);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89960' }]);

    const second = parts(v, { journal });
    expect(second.stops.wanted().map((w) => [w.strategyId, w.trailing?.distance.toString(), w.extreme?.toString(), w.trail?.toString()])).toEqual([
      ['g', '100', '90060', '89960'],
    ]);
    // The best price is 90060 still: 90080 is not a step better (a lost state would have started over at 89980).
    v.trade('90080');
    await step(v, second);
    expect(count(second.calls, 'modifyTpSl')).toBe(0);
    expect(count(second.calls, 'placeTpSl')).toBe(0);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89960' }]);
  });

  it('the stops of a strategy no longer running are canceled, its protection dropped', async () => {
    const v = venue();
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const first = parts(v, { journal });
    await first.executor.submit(protect({ stopLoss: d('89000') }));
    v.long('0.01');
    await step(v, first);
    const second = parts(v, { journal, strategyIds: ['other'] });
    expect(second.stops.wanted()).toEqual([]);
    await step(v, second);
    expect(await v.stops()).toEqual([]);
    expect(stopRows(second).map((r) => r.state)).toEqual(['canceled']);
  });
});

describe('stop manager: an unknown outcome', () => {
  it('a stop placed with no answer is resolved by the tracker, never sent again', async () => {
    const v = venue();
    const p = parts(v, {
      overrides: {
        placeTpSl: async (req: TpSlRequest): Promise<ItemResult> => {
          await v.sim.placeTpSl(req);
          return { outcome: 'unknown', clientOid: req.clientOid, orderId: null, error: new ExchangeError('timeout', 'no answer', { endpoint: 'F23' }) };
        },
      },
    });
    await p.executor.submit(protect({ stopLoss: d('89000') }));
    v.long('0.01');
    await step(v, p);
    expect(stopRows(p).map((r) => r.state)).toEqual(['unknown']);
    await step(v, p);
    await step(v, p);
    expect(count(p.calls, 'placeTpSl')).toBe(1);

    const report = await p.tracker.reconcile();
    expect(report.resolved).toBe(1);
    expect(stopRows(p).map((r) => [r.state, r.orderId !== null])).toEqual([['untriggered', true]]);
    await step(v, p);
    expect(count(p.calls, 'placeTpSl')).toBe(1);
    expect(await v.stops()).toEqual([{ role: 'stop-loss', size: '0.01', trigger: '89000' }]);
  });
});
