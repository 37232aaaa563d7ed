// How a journal behaves, as one suite every implementation of the port (src/journal/journal.ts) must pass: orders
// (and the role of a trigger order that protects a position) and their history, fills, funding settlements, risk
// decisions and latches, strategy state, the venue binding, operators' commands, and the queries the executor, the order tracker, the
// risk gate, the kill action, the funding watch and the commands make. A durable store also keeps all of it across
// a reopen, and one connection sees what another committed (an operator's command beside a running daemon); and once
// fenced, a writer whose lease token is older than one recorded in the store writes nothing.
import { describe, expect, it } from '@jest/globals';
import { bindJournal, JournalFencedError, JournalVenueError, type Journal, type JournalOrder } from '../../src/journal/journal.js';
import { journalRow } from '../fixtures/journal-row.js';

export interface JournalSubject {
  /** A new, empty store; `open()` connects to it (a durable store may be opened several times, at once or in turn). */
  fresh(): { open(): Journal };
  /** The store outlives its connections, and one connection sees what another committed. */
  durable: boolean;
}

/** An order as the contract compares it: a role not given comes back absent or null, both meaning none. */
const asRead = (row: JournalOrder | undefined) => (row ? { ...row, role: row.role ?? null } : row);

/** A row with every optional field set: what must come back exactly. */
const full = (clientOid: string, over: Partial<JournalOrder> = {}): JournalOrder =>
  journalRow(clientOid, {
    strategyId: 'mm',
    intentId: 7,
    surface: 'futures',
    symbol: 'cmt_btcusdt',
    side: 'sell',
    kind: 'market',
    timeInForce: 'ioc',
    price: null,
    size: '0.015',
    positionSide: 'long',
    reduceOnly: true,
    isTrigger: true,
    triggerPrice: '91000.5',
    orderId: '987654321987654321987',
    state: 'untriggered',
    filledSize: '0.005',
    avgPrice: '90999.9',
    fee: '0.0012',
    createdAtMs: 1_700_000_000_123,
    updatedAtMs: 1_700_000_000_456,
    seenAtMs: 1_700_000_000_400,
    absentChecks: 2,
    absentSinceMs: 1_700_000_000_300,
    lastError: 'ExchangeError timeout',
    role: 'stop-loss',
    ...over,
  });

export function describeJournalContract(name: string, subject: JournalSubject): void {
  // Durability is part of the contract only for a store that outlives its connection (not SQLite's :memory:).
  const durableIt = (title: string, body: () => void) => {
    if (subject.durable) it(title, body);
  };
  const open = () => subject.fresh().open();

  describe(`journal contract: ${name}`, () => {
    it('hands out client ids valid for the venue, carrying the strategy tag, never the same twice', () => {
      const j = open();
      const ids = [...j.nextClientOids('market-maker/btc', 30), ...j.nextClientOids('market-maker/btc', 1), ...j.nextClientOids('other', 5)];
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_]{1,40}$/);
      expect(new Set(ids).size).toBe(36);
      expect(ids[0]).toMatch(/^sx_marketmakerb/);
      expect(ids.at(-1)).toMatch(/^sx_other_/);
      j.close();
    });

    it('records intents with increasing ids', () => {
      const j = open();
      const a = j.recordIntent('s', 'place', '{"kind":"place"}', 1);
      const b = j.recordIntent('s', 'cancel', '{"kind":"cancel"}', 2);
      expect(b).toBeGreaterThan(a);
      j.close();
    });

    it('gives an order back exactly as written, every field, and starts its history', () => {
      const j = open();
      const row = full('f1');
      j.insertOrders([row, journalRow('plain')]);
      expect(j.order('f1')).toEqual(row);
      expect(asRead(j.order('plain'))).toEqual(asRead(journalRow('plain')));
      expect(j.order('nope')).toBeUndefined();
      expect(j.history('f1')).toEqual([{ event: 'written', state: 'untriggered', atMs: row.createdAtMs }]);
      j.close();
    });

    it('changes an order with a patch, stamps updatedAtMs, and records each change with the state after it', () => {
      const j = open();
      j.insertOrders([journalRow('a', { createdAtMs: 10, updatedAtMs: 10 })]);
      j.updateOrder('a', { state: 'open', orderId: '700000000000000001' }, 'accepted', 20);
      // What the trading loop tells a change of a resting order by.
      expect(j.order('a')).toMatchObject({ state: 'open', updatedAtMs: 20 });
      expect(j.activeOrders()).toEqual([j.order('a')]);
      j.updateOrder('a', { lastError: 'cancel refused' }, 'cancel not confirmed', 30);
      expect(j.order('a')).toMatchObject({ state: 'open', updatedAtMs: 30, lastError: 'cancel refused' });
      j.updateOrder('a', { state: 'filled', filledSize: '1', avgPrice: '1', fee: '0.001' }, 'venue says filled', 40);
      expect(asRead(j.order('a'))).toEqual(
        asRead(
          journalRow('a', {
            createdAtMs: 10,
            updatedAtMs: 40,
            state: 'filled',
            orderId: '700000000000000001',
            filledSize: '1',
            avgPrice: '1',
            fee: '0.001',
            lastError: 'cancel refused',
          }),
        ),
      );
      expect(j.history('a')).toEqual([
        { event: 'written', state: 'sending', atMs: 10 },
        { event: 'accepted', state: 'open', atMs: 20 },
        { event: 'cancel not confirmed', state: 'open', atMs: 30 },
        { event: 'venue says filled', state: 'filled', atMs: 40 },
      ]);
      j.close();
    });

    it('lists the orders not final, oldest first (then by client id); a final one leaves, one made active again returns', () => {
      const j = open();
      j.insertOrders([
        journalRow('c', { createdAtMs: 5 }),
        journalRow('b', { createdAtMs: 5, state: 'open' }),
        journalRow('a', { createdAtMs: 9, state: 'lost' }),
        journalRow('z', { createdAtMs: 1, state: 'filled' }),
        journalRow('y', { createdAtMs: 2, state: 'unknown' }),
      ]);
      expect(j.activeOrders().map((r) => r.clientOid)).toEqual(['y', 'b', 'c', 'a']);
      j.updateOrder('b', { state: 'canceled' }, 'canceled', 10);
      j.updateOrder('z', { state: 'canceling' }, 'cancel outcome to resolve', 11);
      expect(j.activeOrders().map((r) => [r.clientOid, r.state])).toEqual([
        ['z', 'canceling'],
        ['y', 'unknown'],
        ['c', 'sending'],
        ['a', 'lost'],
      ]);
      expect(j.allOrders().map((r) => r.clientOid)).toEqual(['z', 'y', 'b', 'c', 'a']);
      expect(j.countByState()).toEqual({ canceling: 1, unknown: 1, canceled: 1, sending: 1, lost: 1 });
      j.close();
    });

    it('hands out copies: what a caller does with a row does not change the journal', () => {
      const j = open();
      j.insertOrders([journalRow('a', { state: 'open' })]);
      const listed = j.activeOrders();
      listed[0]!.state = 'filled';
      const one = j.order('a')!;
      one.filledSize = '9';
      expect(j.order('a')).toMatchObject({ state: 'open', filledSize: '0' });
      expect(j.activeOrders().map((r) => r.state)).toEqual(['open']);
      j.close();
    });

    it('finds an order by venue id: the active one first, then the newest (a replaced venue numbers from 1 again)', () => {
      const j = open();
      j.insertOrders([
        journalRow('old', { createdAtMs: 1, orderId: '7', state: 'open' }),
        journalRow('older', { createdAtMs: 0, orderId: '7', state: 'canceled' }),
      ]);
      j.insertOrders([journalRow('new', { createdAtMs: 5, orderId: '7', state: 'filled' })]);
      expect(j.orderByOrderId('7')!.clientOid).toBe('old');
      j.updateOrder('old', { state: 'vanished' }, 'vanished', 6);
      expect(j.orderByOrderId('7')!.clientOid).toBe('new');
      expect(j.orderByOrderId('8')).toBeUndefined();
      j.close();
    });

    it('records each fill once', () => {
      const j = open();
      const fill = { clientOid: 'a', orderId: '1', fillId: 'f1', price: '100.5', size: '0.25', fee: '0.01', atMs: 7 };
      expect(j.recordFill(fill)).toBe(true);
      expect(j.recordFill(fill)).toBe(false);
      expect(j.recordFill({ ...fill, fillId: 'f2' })).toBe(true);
      j.close();
    });

    it('keeps the role of a trigger order that protects a position, and changes it with a patch', () => {
      const j = open();
      j.insertOrders([full('tp', { role: 'take-profit' }), full('none', { role: null }), journalRow('plain', { state: 'open' })]);
      expect(j.order('tp')?.role).toBe('take-profit');
      expect(j.order('none')?.role ?? null).toBeNull();
      expect(j.order('plain')?.role ?? null).toBeNull();
      j.updateOrder('tp', { role: 'stop-loss' }, 'role changed', 9);
      expect(j.order('tp')).toEqual(full('tp', { role: 'stop-loss', updatedAtMs: 9 }));
      expect(j.activeOrders().find((r) => r.clientOid === 'tp')?.role).toBe('stop-loss');
      j.close();
    });

    it('records each funding settlement once by its reference, exactly as given, and lists them oldest first', () => {
      const j = open();
      expect(j.funding()).toEqual([]);
      const big = { ref: '686960019383517338123', symbol: 'cmt_btcusdt', amount: '-0.08266646', atMs: 1_763_784_031_721 };
      expect(j.recordFunding(big)).toBe(true);
      expect(j.recordFunding({ ...big, amount: '5' })).toBe(false);
      expect(j.recordFunding({ ref: 'b', symbol: 'cmt_ethusdt', amount: '0.12500000', atMs: 1_763_755_200_000 })).toBe(true);
      expect(j.recordFunding({ ref: 'a', symbol: 'cmt_ethusdt', amount: '0', atMs: 1_763_755_200_000 })).toBe(true);
      expect(j.funding()).toEqual([
        { ref: 'a', symbol: 'cmt_ethusdt', amount: '0', atMs: 1_763_755_200_000 },
        { ref: 'b', symbol: 'cmt_ethusdt', amount: '0.12500000', atMs: 1_763_755_200_000 },
        big,
      ]);
      j.close();
    });

    it("lists fills oldest first with their orders' strategy, symbol and side; of one strategy; the latest few", () => {
      const j = open();
      j.insertOrders([
        journalRow('a', { strategyId: 'mm', symbol: 'BTCUSDT', side: 'buy' }),
        journalRow('b', { strategyId: 'dca', symbol: 'ETHUSDT', side: 'sell' }),
      ]);
      const fill = (clientOid: string, fillId: string, atMs: number) => ({
        clientOid,
        orderId: '700000000000000000123',
        fillId,
        price: '100.5',
        size: '0.25',
        fee: '0.01',
        atMs,
      });
      j.recordFill(fill('a', 'f2', 20));
      j.recordFill(fill('b', 'f1', 10));
      j.recordFill(fill('a', 'f3', 30));
      j.recordFill(fill('gone', 'f4', 40));
      expect(j.fills().map((f) => f.fillId)).toEqual(['f1', 'f2', 'f3', 'f4']);
      expect(j.fills()[0]).toEqual({
        clientOid: 'b',
        orderId: '700000000000000000123',
        fillId: 'f1',
        price: '100.5',
        size: '0.25',
        fee: '0.01',
        atMs: 10,
        strategyId: 'dca',
        symbol: 'ETHUSDT',
        side: 'sell',
      });
      expect(j.fills().at(-1)).toMatchObject({ fillId: 'f4', strategyId: null, symbol: null, side: null });
      expect(j.fills({ strategyId: 'mm' }).map((f) => f.fillId)).toEqual(['f2', 'f3']);
      expect(j.fills({ limit: 2 }).map((f) => f.fillId)).toEqual(['f3', 'f4']);
      expect(j.fills({ strategyId: 'mm', limit: 1 }).map((f) => f.fillId)).toEqual(['f3']);
      expect(j.fills({ strategyId: 'nobody' })).toEqual([]);
      j.close();
    });

    it('lists recent orders of any state, newest first, of one strategy, at most a limit', () => {
      const j = open();
      j.insertOrders([
        journalRow('a', { strategyId: 'mm', createdAtMs: 1, state: 'filled' }),
        journalRow('b', { strategyId: 'dca', createdAtMs: 2, state: 'open' }),
        journalRow('c', { strategyId: 'mm', createdAtMs: 3 }),
        journalRow('d', { strategyId: 'mm', createdAtMs: 3, state: 'canceled' }),
      ]);
      expect(j.recentOrders({ limit: 10 }).map((r) => r.clientOid)).toEqual(['d', 'c', 'b', 'a']);
      expect(j.recentOrders({ limit: 2 }).map((r) => r.clientOid)).toEqual(['d', 'c']);
      expect(j.recentOrders({ strategyId: 'mm', limit: 10 }).map((r) => r.clientOid)).toEqual(['d', 'c', 'a']);
      expect(asRead(j.recentOrders({ strategyId: 'dca', limit: 1 })[0])).toEqual(asRead(journalRow('b', { strategyId: 'dca', createdAtMs: 2, state: 'open' })));
      j.close();
    });

    it('gives the equity series back oldest first, from a time, the latest points', () => {
      const j = open();
      j.recordEquity('spot', '100', 1);
      j.recordEquity('futures', '50', 1);
      j.recordEquity('spot', '100', 2);
      j.recordEquity('spot', '101.5', 3);
      expect(j.equitySeries()).toEqual([
        { surface: 'spot', value: '100', atMs: 1 },
        { surface: 'futures', value: '50', atMs: 1 },
        { surface: 'spot', value: '101.5', atMs: 3 },
      ]);
      expect(j.equitySeries({ sinceMs: 2 })).toEqual([{ surface: 'spot', value: '101.5', atMs: 3 }]);
      expect(j.equitySeries({ limit: 2 }).map((p) => p.value)).toEqual(['50', '101.5']);
      j.close();
    });

    it("writes down an operator's command before it acts, and its outcome after; lists them oldest first", () => {
      const j = open();
      expect(j.commands()).toEqual([]);
      const a = j.recordCommand({ via: 'api', who: 'token', command: 'halt', args: '{}', reason: 'venue incident', atMs: 10 });
      const b = j.recordCommand({ via: 'cli', who: 'loopback', command: 'pause', args: '{"id":"mm","cancelOrders":true}', reason: null, atMs: 11 });
      expect(b).toBeGreaterThan(a);
      expect(j.commands()).toEqual([
        { id: a, via: 'api', who: 'token', command: 'halt', args: '{}', reason: 'venue incident', atMs: 10, outcome: null },
        { id: b, via: 'cli', who: 'loopback', command: 'pause', args: '{"id":"mm","cancelOrders":true}', reason: null, atMs: 11, outcome: null },
      ]);
      j.finishCommand(a, { ok: true, detail: 'halted', atMs: 12 });
      j.finishCommand(b, { ok: false, detail: 'no strategy mm', atMs: 13 });
      expect(j.commands().map((c) => c.outcome)).toEqual([
        { ok: true, detail: 'halted', atMs: 12 },
        { ok: false, detail: 'no strategy mm', atMs: 13 },
      ]);
      expect(j.commands({ limit: 1 }).map((c) => c.id)).toEqual([b]);
      j.close();
    });

    it('records risk decisions, one or many at once, in order', () => {
      const j = open();
      j.recordRiskDecision('s', 'place', 'price-band', 'far', 1);
      j.recordRiskDecisions([]);
      j.recordRiskDecisions([
        { strategyId: 's', intentKind: 'place', reason: 'halted', detail: 'kill-switch', atMs: 2 },
        { strategyId: 't', intentKind: 'cancel', reason: 'not-own-order', detail: 'x', atMs: 3 },
      ]);
      expect(j.riskDecisions()).toEqual([
        { strategyId: 's', reason: 'price-band', detail: 'far', atMs: 1 },
        { strategyId: 's', reason: 'halted', detail: 'kill-switch', atMs: 2 },
        { strategyId: 't', reason: 'not-own-order', detail: 'x', atMs: 3 },
      ]);
      j.close();
    });

    it('keeps latches by name: the first reason stays until cleared', () => {
      const j = open();
      expect(j.latch('kill-switch:drawdown')).toBeUndefined();
      j.setLatch('kill-switch:drawdown', 'drawdown 10 %', 5);
      j.setLatch('kill-switch:drawdown', 'drawdown 12 %', 6);
      j.setLatch('reduce:operator', 'wind down', 7);
      expect(j.latch('kill-switch:drawdown')).toEqual({ name: 'kill-switch:drawdown', reason: 'drawdown 10 %', atMs: 5 });
      j.clearLatch('kill-switch:drawdown');
      j.clearLatch('never-set');
      expect(j.latch('kill-switch:drawdown')).toBeUndefined();
      expect(j.latch('reduce:operator')).toEqual({ name: 'reduce:operator', reason: 'wind down', atMs: 7 });
      j.close();
    });

    it("keeps a strategy instance's state, the latest saved", () => {
      const j = open();
      expect(j.strategyState('mm')).toBeUndefined();
      j.saveStrategyState('mm', '{"n":1}', 1);
      j.saveStrategyState('mm', '{"n":2}', 2);
      j.saveStrategyState('other', '{}', 2);
      expect(j.strategyState('mm')).toBe('{"n":2}');
      j.close();
    });

    it('belongs to one venue and account once bound', () => {
      const j = open();
      expect(j.venueBinding()).toBeUndefined();
      bindJournal(j, { venue: 'https://a.example', account: 'k1' }, 'here', 1);
      bindJournal(j, { venue: 'https://a.example', account: 'k1' }, 'here', 2);
      expect(j.venueBinding()).toEqual({ venue: 'https://a.example', account: 'k1' });
      expect(() => bindJournal(j, { venue: 'https://a.example', account: 'k2' }, 'here', 3)).toThrow(JournalVenueError);
      j.close();
    });

    it('records equity and keeps working through housekeeping and a refresh with nobody else writing', () => {
      const j = open();
      j.insertOrders([journalRow('a', { state: 'open' })]);
      j.recordEquity('spot', '100', 1);
      j.recordEquity('spot', '100', 2);
      j.maintain();
      j.refresh();
      j.updateOrder('a', { state: 'canceling' }, 'cancel requested', 3);
      expect(j.activeOrders().map((r) => [r.clientOid, r.state])).toEqual([['a', 'canceling']]);
      j.close();
    });

    durableIt('keeps everything across a reopen, and never hands out a client id again', () => {
      const store = subject.fresh();
      const a = store.open();
      const firstIds = a.nextClientOids('mm', 3);
      const intent = a.recordIntent('mm', 'place', '{}', 1);
      a.insertOrders([full('f1'), journalRow('done', { state: 'open' })]);
      a.updateOrder('done', { state: 'filled' }, 'venue says filled', 9);
      a.recordFill({ clientOid: 'f1', orderId: '1', fillId: 'f1', price: '1', size: '1', fee: '0', atMs: 2 });
      a.recordRiskDecision('mm', 'place', 'halted', 'x', 3);
      a.setLatch('reduce:operator', 'wind down', 4);
      a.saveStrategyState('mm', '{"k":1}', 5);
      a.bindVenue({ venue: 'v', account: 'acc' }, 6);
      a.recordFunding({ ref: 'bill-1', symbol: 'cmt_btcusdt', amount: '-1.5', atMs: 8 });
      const command = a.recordCommand({ via: 'api', who: 'token', command: 'reduce', args: '{}', reason: 'wind down', atMs: 9 });
      a.finishCommand(command, { ok: true, detail: 'reducing', atMs: 10 });
      a.close();
      const b = store.open();
      expect(b.activeOrders()).toEqual([full('f1')]);
      expect(b.funding()).toEqual([{ ref: 'bill-1', symbol: 'cmt_btcusdt', amount: '-1.5', atMs: 8 }]);
      expect(b.recordFunding({ ref: 'bill-1', symbol: 'cmt_btcusdt', amount: '-1.5', atMs: 8 })).toBe(false);
      expect(b.order('done')).toMatchObject({ state: 'filled', updatedAtMs: 9 });
      expect(b.history('done').map((h) => h.event)).toEqual(['written', 'venue says filled']);
      expect(b.recordFill({ clientOid: 'f1', orderId: '1', fillId: 'f1', price: '1', size: '1', fee: '0', atMs: 2 })).toBe(false);
      expect(b.riskDecisions()).toHaveLength(1);
      expect(b.latch('reduce:operator')).toMatchObject({ reason: 'wind down' });
      expect(b.strategyState('mm')).toBe('{"k":1}');
      expect(b.venueBinding()).toEqual({ venue: 'v', account: 'acc' });
      expect(b.commands()).toEqual([
        {
          id: command,
          via: 'api',
          who: 'token',
          command: 'reduce',
          args: '{}',
          reason: 'wind down',
          atMs: 9,
          outcome: { ok: true, detail: 'reducing', atMs: 10 },
        },
      ]);
      expect(b.fills().map((f) => f.fillId)).toEqual(['f1']);
      expect(b.recordIntent('mm', 'place', '{}', 7)).toBeGreaterThan(intent);
      const again = b.nextClientOids('mm', 3);
      for (const id of again) expect(firstIds).not.toContain(id);
      b.close();
    });

    durableIt('commits an intent and a client id reservation each at once, on its own: an order insert failing after them takes neither back', () => {
      const store = subject.fresh();
      const daemon = store.open();
      const other = store.open();
      const intent = daemon.recordIntent('mm', 'place', '{}', 1);
      const [first] = daemon.nextClientOids('mm', 2);
      expect(() => daemon.insertOrders([journalRow(first!), journalRow(first!)])).toThrow();
      expect(other.allOrders()).toEqual([]);
      expect(other.nextClientOids('mm', 1)).toEqual(['sx_mm_3']);
      expect(other.recordIntent('mm', 'place', '{}', 2)).toBeGreaterThan(intent);
      for (const j of [daemon, other]) j.close();
    });

    durableIt('sees what another connection committed: latches at once, orders after a refresh', () => {
      const store = subject.fresh();
      const daemon = store.open();
      const operator = store.open();
      daemon.insertOrders([journalRow('u', { state: 'unknown' }), journalRow('o', { state: 'open' })]);
      operator.setLatch('reduce:operator', 'from the command line', 1);
      expect(daemon.latch('reduce:operator')).toMatchObject({ reason: 'from the command line' });
      operator.clearLatch('reduce:operator');
      expect(daemon.latch('reduce:operator')).toBeUndefined();
      operator.updateOrder('u', { state: 'canceled' }, 'settled by an operator as canceled: gone', 2);
      daemon.refresh();
      expect(daemon.activeOrders().map((r) => r.clientOid)).toEqual(['o']);
      expect(daemon.order('u')).toMatchObject({ state: 'canceled', updatedAtMs: 2 });
      operator.close();
      daemon.close();
    });

    durableIt('once fenced, refuses every write of an older token after a newer one wrote, and writes nothing of it', () => {
      const store = subject.fresh();
      const old = store.open();
      const next = store.open();
      const bystander = store.open();
      old.fence(3);
      old.insertOrders([journalRow('a', { state: 'open' })]);
      old.fence(3);
      old.setLatch('mine', 'token 3', 1);
      next.fence(4);
      const refused = (write: () => unknown) => {
        let caught: unknown;
        try {
          write();
        } catch (err) {
          caught = err;
        }
        expect(caught).toBeInstanceOf(JournalFencedError);
        expect(caught).toMatchObject({ token: 3, storeToken: 4 });
        expect((caught as Error).message).toMatch(/\b4\b.*\b3\b/);
      };
      // Fenced by the newer token alone, before it wrote anything.
      refused(() => old.setLatch('early', 'token 3', 2));
      next.updateOrder('a', { state: 'canceling' }, 'cancel requested', 2);
      refused(() => old.insertOrders([journalRow('b', { state: 'open' }), journalRow('c')]));
      refused(() => old.updateOrder('a', { state: 'filled' }, 'venue says filled', 3));
      refused(() => old.recordFill({ clientOid: 'a', orderId: '1', fillId: 'f1', price: '1', size: '1', fee: '0', atMs: 3 }));
      refused(() => old.setLatch('late', 'token 3', 3));
      refused(() => old.clearLatch('mine'));
      refused(() => old.recordIntent('mm', 'place', '{}', 3));
      refused(() => old.nextClientOids('mm', 1));
      refused(() => old.recordRiskDecisions([{ strategyId: 's', intentKind: 'place', reason: 'halted', detail: 'x', atMs: 3 }]));
      refused(() => old.saveStrategyState('mm', '{}', 3));
      refused(() => old.recordCommand({ via: 'api', who: 'token', command: 'halt', args: '{}', reason: null, atMs: 3 }));
      // Nothing of the refused writes is in the store; reads still answer.
      expect(next.allOrders().map((r) => [r.clientOid, r.state])).toEqual([['a', 'canceling']]);
      expect(next.fills()).toEqual([]);
      expect(next.latch('late')).toBeUndefined();
      expect(next.latch('mine')).toMatchObject({ reason: 'token 3' });
      expect(next.riskDecisions()).toEqual([]);
      expect(next.commands()).toEqual([]);
      expect(next.strategyState('mm')).toBeUndefined();
      expect(next.nextClientOids('mm', 1)).toEqual(['sx_mm_1']);
      old.refresh();
      expect(old.order('a')).toMatchObject({ state: 'canceling' });
      // The same token again writes; a journal never fenced is not checked; a yet newer token locks the last one out.
      next.fence(4);
      next.recordEquity('spot', '1', 4);
      bystander.setLatch('operator', 'not fenced', 5);
      expect(next.latch('operator')).toMatchObject({ reason: 'not fenced' });
      old.fence(5);
      old.recordEquity('spot', '2', 6);
      expect(() => next.recordEquity('spot', '3', 7)).toThrow(JournalFencedError);
      expect(old.equitySeries().map((p) => p.value)).toEqual(['1', '2']);
      // A reopened journal starts unfenced: fence() again, with the token its lease gave.
      const reopened = store.open();
      expect(() => reopened.fence(4)).toThrow(JournalFencedError);
      expect(() => reopened.recordEquity('spot', '4', 8)).toThrow(JournalFencedError);
      for (const j of [old, next, bystander, reopened]) j.close();
    });
  });
}
