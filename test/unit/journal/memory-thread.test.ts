// The in-memory journal on its worker thread: the same answers and the same saved rows as on the calling thread
// through a long run of writes (several flushes of held writes, rows rewritten, the writes that are not waited
// for, reads in between); a statement that fails on the thread is thrown, with SQLite's message, by the next call
// that waits; a closed journal ends its thread, and a process with an in-memory journal, closed or not, exits.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import Database from '../../../src/journal/sqlite-driver.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { ThreadDatabase } from '../../../src/journal/sqlite-thread.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-journal-thread-'));

/** A backtest's worth of journal traffic (seeded), and everything the journal answered along the way. */
function traffic(j: SqliteJournal): unknown[] {
  const out: unknown[] = [];
  let seed = 42;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
  const open: string[] = [];
  const done: string[] = [];
  let t = 1_700_000_000_000;
  const reads = (oid: string) => {
    out.push(
      j.order(oid),
      j.orderByOrderId(j.order(oid)?.orderId ?? '-'),
      j.activeOrders(),
      j.activeVersion(),
      j.fills({ limit: 5 }),
      j.fills({ strategyId: 's1', limit: 3 }),
    );
    out.push(
      j.history(oid),
      j.countByState(),
      j.latch('gate'),
      j.strategyState('s0'),
      j.commands({ limit: 2 }),
      j.equitySeries({ limit: 3 }),
      j.funding().length,
      j.riskDecisions().length,
    );
    out.push(j.recentOrders({ strategyId: 's2', limit: 4 }), j.venueBinding());
    // The rows the journal answers from memory are the table's.
    const table = new Map(j.allOrders().map((r) => [r.clientOid, r]));
    for (const o of [...open, ...done.slice(-300)]) expect(j.order(o)).toEqual(table.get(o));
  };
  for (let i = 0; i < 9000; i++) {
    t += 1 + rnd(3);
    const strategy = `s${i % 3}`;
    const intentId = j.recordIntent(strategy, 'place', JSON.stringify({ i, price: `${100 + rnd(50)}.${rnd(10)}` }), t);
    const oids = j.nextClientOids(strategy, 1 + (i % 2));
    const oid = oids[0]!;
    out.push(intentId, oids);
    j.insertOrders([
      journalRow(oid, {
        strategyId: strategy,
        intentId,
        createdAtMs: t,
        updatedAtMs: t,
        isTrigger: i % 7 === 0,
        ...(i % 7 === 0 ? { role: 'stop-loss' as const } : {}),
      }),
    ]);
    j.updateOrder(oid, { state: 'open', orderId: String(1_000_000 + i) }, 'accepted', t + 1);
    const fate = rnd(4);
    if (fate === 0) {
      open.push(oid);
    } else {
      if (fate >= 2) {
        j.updateOrder(oid, { filledSize: '0.5', avgPrice: '100.5' }, 'fill', t + 2);
        out.push(j.recordFill({ clientOid: oid, orderId: String(1_000_000 + i), fillId: `f${i}`, price: '100.5', size: '0.5', fee: '0.01', atMs: t + 2 }));
      }
      j.updateOrder(oid, { state: fate === 3 ? 'filled' : 'canceled', ...(fate === 3 ? { filledSize: '1' } : {}) }, fate === 3 ? 'filled' : 'canceled', t + 3);
      // A cancel that comes after the fill.
      if (fate === 3 && i % 3 === 0) j.updateOrder(oid, { lastError: 'cancel not confirmed' }, 'cancel not confirmed', t + 4);
      done.push(oid);
    }
    // Orders left open are canceled later, some while their rows still wait, some once written.
    if (open.length > 40) j.updateOrder(open.splice(rnd(open.length), 1)[0]!, { state: 'canceled' }, 'canceled', t + 4);
    j.recordEquity(i % 5 === 0 ? 'futures' : 'spot', String(1000 + rnd(8)), t);
    if (i % 100 === 0)
      j.recordRiskDecisions([
        { strategyId: strategy, intentKind: 'place', reason: 'price-band', detail: String(i), atMs: t },
        { strategyId: 's0', intentKind: 'cancel', reason: 'rate', detail: '-', atMs: t },
      ]);
    if (i % 900 === 0) j.saveStrategyState('s0', JSON.stringify({ i }), t);
    if (i % 1300 === 0) j.setLatch('gate', `at ${i}`, t);
    if (i % 1300 === 650) j.clearLatch('gate');
    // Rare: these wait for the database (a flush of whatever is held, and an answer).
    if (i % 3000 === 2999) {
      reads(oid);
      out.push(
        j.recordFunding({ ref: `r${i}`, symbol: 'cmt_btcusdt', amount: '-0.1', atMs: t }),
        j.recordFunding({ ref: `r${i}`, symbol: 'cmt_btcusdt', amount: '-0.1', atMs: t }),
      );
      const id = j.recordCommand({ via: 'cli', who: 'op', command: 'pause', args: '{}', reason: null, atMs: t });
      j.finishCommand(id, { ok: true, detail: 'paused', atMs: t + 1 });
      out.push(id);
      // A final row already written, changed again: the table's own update.
      j.updateOrder(done[rnd(done.length)]!, { lastError: 'late answer' }, 'late', t + 5);
      // One made active again (canceled later, with the others left open).
      const again = done.splice(rnd(done.length), 1)[0]!;
      j.updateOrder(again, { state: 'open' }, 'open again', t + 6);
      open.push(again);
      if (i === 2999) j.bindVenue({ venue: 'sim', account: 'a1' }, t);
    }
  }
  reads(done.at(-1)!);
  out.push(j.allOrders());
  return out;
}

/** Every table's rows in rowid order, and the schema. */
function dump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {
      schema: db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all(),
      version: [db.pragma('user_version', { simple: true })],
    };
    for (const { name } of db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>) {
      out[name] = db.prepare(`SELECT rowid AS rowid_, * FROM "${name}" ORDER BY rowid`).all();
    }
    return out;
  } finally {
    db.close();
  }
}

/** Runs a module's text in a new node process (the compiled journal), until it exits by itself. */
function node(source: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', source], { env: { PATH: process.env.PATH } });
    let out = '';
    p.stdout.on('data', (x) => (out += String(x)));
    p.stderr.on('data', (x) => (out += String(x)));
    p.on('close', (code) => resolve({ code, out }));
  });
}

const compiled = new URL('../../../dist/journal/sqlite-journal.js', import.meta.url).href;

describe('in-memory journal on a worker thread', () => {
  it('answers and saves exactly what the journal on the calling thread does', () => {
    const threaded = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    const direct = new SqliteJournal(':memory:', { clientOidPrefix: 'sx', thread: false });
    const a = traffic(threaded);
    const b = traffic(direct);
    expect(a.length).toBe(b.length);
    expect(a).toEqual(b);
    threaded.saveTo(join(dir, 'threaded.sqlite'));
    direct.saveTo(join(dir, 'direct.sqlite'));
    threaded.close();
    direct.close();
    const [x, y] = [dump(join(dir, 'threaded.sqlite')), dump(join(dir, 'direct.sqlite'))];
    expect(Object.keys(x)).toEqual(Object.keys(y));
    // Enough traffic for several flushes of held writes.
    expect([x.orders!.length, x.order_events!.length, x.intents!.length]).toEqual([9000, expect.any(Number), 9000]);
    expect(x.order_events!.length).toBeGreaterThan(20_000);
    for (const k of Object.keys(y)) expect({ k, rows: x[k] }).toEqual({ k, rows: y[k] });
  });

  it("throws a held write that failed on the thread, with SQLite's message, from the next call that waits; as the calling thread does", () => {
    for (const thread of [true, false]) {
      const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx', thread });
      j.insertOrders([journalRow('ok')]);
      expect(j.countByState()).toEqual({ sending: 1 });
      j.insertOrders([journalRow('bad', { size: null as unknown as string })]);
      let err: unknown;
      try {
        j.allOrders();
      } catch (e) {
        err = e;
      }
      const { name, code, message } = err as { name: string; code: string; message: string };
      expect({ thread, name, code, message }).toEqual({
        thread,
        name: 'SqliteError',
        code: 'SQLITE_CONSTRAINT_NOTNULL',
        message: 'NOT NULL constraint failed: orders.size',
      });
      // Told once: the journal answers again.
      expect(j.countByState()).toEqual({ sending: 1 });
      j.close();
    }
  });

  it('throws a write not waited for that failed, from the next call', () => {
    const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
    j.recordRiskDecision('s', 'place', 'why', null as unknown as string, 1);
    expect(() => j.riskDecisions()).toThrow('NOT NULL constraint failed: risk_decisions.detail');
    j.recordRiskDecision('s', 'place', 'why', 'detail', 2);
    expect(j.riskDecisions()).toEqual([{ strategyId: 's', reason: 'why', detail: 'detail', atMs: 2 }]);
    j.close();
  });

  it('throws a statement that fails on the thread: handed over (at the next call), or waited for (at once)', () => {
    const db = new ThreadDatabase();
    db.later('INSERT INTO nowhere VALUES (?)', [1]);
    db.send();
    expect(() => db.pragma('user_version', { simple: true })).toThrow('no such table: nowhere');
    expect(db.pragma('user_version', { simple: true })).toBe(0);
    expect(() => db.prepare('SELEC 1').get()).toThrow('near "SELEC": syntax error');
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    db.prepare('INSERT INTO t VALUES (?)').run('a');
    expect(() => db.prepare('INSERT INTO t VALUES (?)').run('a')).toThrow(
      new Database.SqliteError('UNIQUE constraint failed: t.k', 'SQLITE_CONSTRAINT_PRIMARYKEY'),
    );
    expect(db.prepare('SELECT k FROM t').all()).toEqual([{ k: 'a' }]);
    // A transaction that throws is rolled back.
    expect(() =>
      db.transaction(() => {
        db.prepare('INSERT INTO t VALUES (?)').run('b');
        throw new Error('no');
      })(),
    ).toThrow('no');
    expect(db.inTransaction).toBe(false);
    expect(db.prepare('SELECT COUNT(*) AS n FROM t').get()).toEqual({ n: 1 });
    // Its pages, copied over: a database that reads back the same.
    const copy = new Database(Buffer.from(db.serialize()));
    expect(copy.prepare('SELECT k FROM t').all()).toEqual([{ k: 'a' }]);
    copy.close();
    db.close();
    expect(() => db.pragma('user_version')).toThrow('The database connection is not open');
  });

  it('a write that fails on the thread keeps none of the others from the table, and no later failure goes untold', () => {
    const db = new ThreadDatabase();
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    const insert = 'INSERT INTO t VALUES (?)';
    for (const k of ['a', 'a', 'b']) db.later(insert, [k]);
    db.send();
    for (const k of ['a', 'c']) db.later(insert, [k]);
    db.send();
    // Both failures told by the next call, the first with SQLite's message; every other row written.
    expect(() => db.prepare('SELECT k FROM t').all()).toThrow('UNIQUE constraint failed: t.k (and 1 more write failed)');
    expect(db.prepare('SELECT k FROM t ORDER BY k').all()).toEqual([{ k: 'a' }, { k: 'b' }, { k: 'c' }]);
    db.close();
  });

  it('a process with an in-memory journal exits by itself, the journal closed or not', async () => {
    const body = (close: boolean) => `
      const { SqliteJournal } = await import(${JSON.stringify(compiled)});
      const j = new SqliteJournal(':memory:', { clientOidPrefix: 'sx' });
      for (let i = 0; i < 30000; i++) j.recordEquity('spot', String(i), i);
      console.log(j.equitySeries({ limit: 1 })[0].value);
      ${close ? 'j.close(); try { j.countByState(); } catch (e) { console.log(e.message); }' : ''}
    `;
    const [closed, open] = await Promise.all([node(body(true)), node(body(false))]);
    expect(closed).toEqual({ code: 0, out: '29999\nThe database connection is not open\n' });
    expect(open).toEqual({ code: 0, out: '29999\n' });
  });
});
