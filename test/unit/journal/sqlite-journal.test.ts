import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../../src/journal/sqlite-driver.js';
import { describe, expect, it } from '@jest/globals';
import { bindJournal, JournalFencedError, JournalVenueError } from '../../../src/journal/journal.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-journal-'));

const row = journalRow;

describe('SQLite journal', () => {
  it('migrates to the current version, once', () => {
    const f = join(dir, 'm.sqlite');
    const a = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    expect(a.schemaVersion).toBe(7);
    a.close();
    const b = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    expect(b.schemaVersion).toBe(7);
    b.close();
  });

  it('hands out client ids that are valid for the venue and never again, across restarts', () => {
    const f = join(dir, 'ids.sqlite');
    const seen = new Set<string>();
    for (let restart = 0; restart < 20; restart++) {
      const j = new SqliteJournal(f, { clientOidPrefix: 'sx1' });
      for (const id of [...j.nextClientOids('market-maker/btc', 50), ...j.nextClientOids('other', 5)]) {
        expect(id).toMatch(/^[A-Za-z0-9_]{1,40}$/);
        expect(seen.has(id)).toBe(false);
        seen.add(id);
      }
      j.close();
    }
    expect(seen.size).toBe(20 * 55);
  });

  it('keeps orders, their history and fills on disk; fills are recorded once', () => {
    const f = join(dir, 'o.sqlite');
    const a = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    a.insertOrders([row('a'), row('b', { isTrigger: true, reduceOnly: true })]);
    a.updateOrder('a', { state: 'open', orderId: '700000000000000001' }, 'accepted', 5);
    a.updateOrder('b', { state: 'rejected' }, 'rejected', 6);
    expect(a.recordFill({ clientOid: 'a', orderId: '700000000000000001', fillId: 'f1', price: '1', size: '0.5', fee: '0', atMs: 7 })).toBe(true);
    expect(a.recordFill({ clientOid: 'a', orderId: '700000000000000001', fillId: 'f1', price: '1', size: '0.5', fee: '0', atMs: 7 })).toBe(false);
    a.close();
    const b = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    expect(b.activeOrders().map((r) => [r.clientOid, r.state, r.orderId])).toEqual([['a', 'open', '700000000000000001']]);
    expect(b.order('b')).toMatchObject({ isTrigger: true, reduceOnly: true, state: 'rejected' });
    expect(b.orderByOrderId('700000000000000001')!.clientOid).toBe('a');
    expect(b.history('a').map((h) => `${h.event}:${h.state}`)).toEqual(['written:sending', 'accepted:open']);
    b.close();
  });

  it('the orders held in memory are exactly what the table says, through any sequence of changes and a restart', () => {
    const f = join(dir, 'cache.sqlite');
    const a = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    const states = ['sending', 'open', 'untriggered', 'unknown', 'canceling', 'lost', 'rejected', 'canceled', 'filled', 'closed'] as const;
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    for (let i = 0; i < 40; i++) a.insertOrders([row(`o${i}`, { createdAtMs: rnd(5), strategyId: i % 2 ? 'x' : 'y' })]);
    for (let k = 0; k < 400; k++) {
      const id = `o${rnd(40)}`;
      a.updateOrder(id, { state: states[rnd(states.length)]!, filledSize: String(rnd(9)), absentChecks: rnd(3) }, `change ${k}`, 100 + k);
    }
    const held = a.activeOrders();
    const anyHeld = held[0]!;
    expect(a.order(anyHeld.clientOid)).toEqual(anyHeld);
    a.close();
    // A new process reads the table itself.
    const b = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    expect(b.activeOrders()).toEqual(held);
    expect(held.length).toBeGreaterThan(5);
    // Whatever a caller does with what it was given does not change the journal.
    held[0]!.state = 'filled';
    expect(b.activeOrders()[0]!.state).not.toBe('filled');
    b.close();
  });

  it('belongs to one venue and account: another one is refused with a message naming both', () => {
    const f = join(dir, 'venue.sqlite');
    const a = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    bindJournal(a, { venue: 'https://a.example', account: 'k1' }, f, 1);
    bindJournal(a, { venue: 'https://a.example', account: 'k1' }, f, 2);
    a.close();
    const b = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    expect(b.venueBinding()).toEqual({ venue: 'https://a.example', account: 'k1' });
    expect(() => bindJournal(b, { venue: 'https://b.example', account: 'k1' }, f, 3)).toThrow(JournalVenueError);
    expect(() => bindJournal(b, { venue: 'https://a.example', account: 'k2' }, f, 3)).toThrow(
      /belongs to venue https:\/\/a\.example \(account k1\), not to https:\/\/a\.example \(account k2\)/,
    );
    b.close();
  });

  it('is readable by its owner only', () => {
    const f = join(dir, 'mode.sqlite');
    const j = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    j.insertOrders([row('m1')]);
    expect(statSync(f).mode & 0o777).toBe(0o600);
    j.close();
  });

  it('finds an order by venue id: the active one first, then the newest (a replaced venue numbers from 1 again)', () => {
    const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    j.insertOrders([row('old', { createdAtMs: 1, orderId: '7', state: 'open' }), row('older', { createdAtMs: 0, orderId: '7', state: 'canceled' })]);
    j.insertOrders([row('new', { createdAtMs: 5, orderId: '7', state: 'filled' })]);
    expect(j.orderByOrderId('7')!.clientOid).toBe('old');
    j.updateOrder('old', { state: 'vanished' }, 'vanished', 6);
    expect(j.orderByOrderId('7')!.clientOid).toBe('new');
    j.close();
  });

  it('commits the intent and the client id reservation unflushed, the order rows flushed, and is back to flushed after each, refused or not', () => {
    const f = join(dir, 'sync.sqlite');
    const j = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    // The synchronous level each statement runs at (2 FULL, 1 NORMAL), read on the journal's own connection: the level
    // cannot change inside a transaction, so it is the level of the commit too.
    const db = (j as unknown as { db: InstanceType<typeof Database> }).db;
    const level = () => db.pragma('synchronous', { simple: true }) as number;
    const ran: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      const st = prepare(sql) as unknown as Record<'run' | 'get' | 'all', (...a: unknown[]) => unknown>;
      for (const m of ['run', 'get', 'all'] as const) {
        const call = st[m].bind(st);
        st[m] = (...a: unknown[]) => (ran.push(`${sql.split(' ').slice(0, 3).join(' ')} @${level()}`), call(...a));
      }
      return st;
    }) as unknown as typeof db.prepare;
    j.recordIntent('mm', 'place', '{}', 1);
    const [oid] = j.nextClientOids('mm', 1);
    j.insertOrders([row(oid!)]);
    expect(ran.splice(0)).toEqual(['INSERT INTO intents @1', 'INSERT INTO sequences @1', 'INSERT INTO orders @2', 'INSERT INTO order_events @2']);
    expect(level()).toBe(2);
    // Fenced: each is a transaction of its own that passes the fence first, at its own level; refused by a newer token.
    j.fence(3);
    j.recordIntent('mm', 'place', '{}', 2);
    j.nextClientOids('mm', 1);
    expect(ran.splice(0)).toEqual([
      'UPDATE journal_fence SET @2',
      'UPDATE journal_fence SET @1',
      'INSERT INTO intents @1',
      'UPDATE journal_fence SET @1',
      'INSERT INTO sequences @1',
    ]);
    const newer = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    newer.fence(4);
    expect(() => j.recordIntent('mm', 'place', '{}', 3)).toThrow(JournalFencedError);
    expect(() => j.nextClientOids('mm', 1)).toThrow(JournalFencedError);
    expect(level()).toBe(2);
    expect(newer.nextClientOids('mm', 1)).toEqual(['sx_mm_3']);
    newer.close();
    j.close();
  });

  it('runs no checkpoint in a commit an order is sent after (intent, client ids, order rows): the next other commit does', () => {
    const f = join(dir, 'checkpoint.sqlite');
    const j = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    const db = (j as unknown as { db: InstanceType<typeof Database> }).db;
    // The database file changes only when a checkpoint copies the WAL into it.
    const main = () => {
      const st = statSync(f, { bigint: true });
      return `${st.size}:${st.mtimeNs}`;
    };
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = main();
    let oid = '';
    for (let k = 0; k < 400; k++) {
      j.recordIntent('mm', 'place', JSON.stringify({ pad: 'x'.repeat(3000) }), k);
      [oid] = j.nextClientOids('mm', 1) as [string];
      j.insertOrders([row(oid)]);
    }
    // Well past SQLite's 1,000 pages, all in the WAL still.
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    expect(statSync(`${f}-wal`).size).toBeGreaterThan(1500 * pageSize);
    expect(main()).toBe(before);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // The venue's answer, after the send: its commit checkpoints.
    j.updateOrder(oid, { state: 'open', orderId: '1' }, 'accepted', 500);
    expect(main()).not.toBe(before);
    j.close();
  });

  it('writes many risk decisions in one go', () => {
    const j = new SqliteJournal(join(dir, 'denials.sqlite'), { clientOidPrefix: 'sx' });
    j.recordRiskDecisions(Array.from({ length: 500 }, (_, i) => ({ strategyId: 's', intentKind: 'place', reason: 'price-band', detail: String(i), atMs: i })));
    expect(j.riskDecisions()).toHaveLength(500);
    expect(j.riskDecisions()[499]!.detail).toBe('499');
    j.close();
  });

  it('records equity as a series of changes', () => {
    const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    for (const [v, t] of [
      ['10', 1],
      ['10', 2],
      ['11', 3],
      ['11', 4],
      ['10', 5],
    ] as const)
      j.recordEquity('spot', v, t);
    j.maintain(); // housekeeping works on the in-memory journal too (its long transaction is committed first)
    j.recordEquity('futures', '10', 6);
    const f = join(dir, 'eq.sqlite');
    j.saveTo(f);
    j.close();
    const k = new SqliteJournal(f, { clientOidPrefix: 'sx' });
    k.close();
    const db = new Database(f, { readonly: true });
    expect(db.prepare('SELECT surface, value, at_ms FROM equity ORDER BY id').all()).toEqual([
      { surface: 'spot', value: '10', at_ms: 1 },
      { surface: 'spot', value: '11', at_ms: 3 },
      { surface: 'spot', value: '10', at_ms: 5 },
      { surface: 'futures', value: '10', at_ms: 6 },
    ]);
    db.close();
  });
});
