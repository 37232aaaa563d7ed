// The fence across processes sharing one store (a SQLite file; a PostgreSQL database): while an older holder writes
// in a loop, a newer holder's first write locks it out, atomically with the writes (every intent of the older
// holder was committed before the newer holder's first: their ids say the order of commits, writers being serialised
// by the fence row).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import Database from '../../../src/journal/sqlite-driver.js';
import { PostgresConnection } from '../../../src/journal/postgres-connection.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { PostgresJournal } from '../../../src/journal/postgres-journal.js';
import { JournalFencedError } from '../../../src/journal/journal.js';
import { dropPostgresSchemas, freshPostgresUrl } from '../../fixtures/postgres.js';

afterAll(() => dropPostgresSchemas());

interface Outcome {
  written: number;
  fenced?: { token: number; storeToken: number };
}

/** A writer process; resolves with what it printed at the end; `onWriting` once it has written 20 intents. */
function writer(cfg: object, onWriting?: () => void): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['test/fixtures/journal-writer.mjs', JSON.stringify(cfg)], { env: { PATH: process.env.PATH } });
    let out = '';
    let err = '';
    p.stdout.on('data', (x) => {
      out += String(x);
      if (onWriting && out.includes('writing\n')) {
        onWriting();
        onWriting = undefined;
      }
    });
    p.stderr.on('data', (x) => (err += String(x)));
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Outcome) : reject(new Error(`writer exited ${code}: ${err}`))));
  });
}

const backends = [
  {
    name: 'SQLite file',
    backend: 'sqlite',
    fresh: () => {
      const file = join(mkdtempSync(join(tmpdir(), 'sextant-fence-')), 'journal.sqlite');
      new SqliteJournal(file, { clientOidPrefix: 'sx' }).close();
      return file;
    },
    intents: (where: string) => {
      const db = new Database(where, { readonly: true });
      const rows = db.prepare('SELECT id, strategy_id FROM intents ORDER BY id').all() as Array<{ id: number; strategy_id: string }>;
      db.close();
      return rows;
    },
  },
  {
    name: 'PostgreSQL',
    backend: 'postgres',
    fresh: () => {
      const url = freshPostgresUrl('fence');
      new PostgresJournal(url, { clientOidPrefix: 'sx' }).close();
      return url;
    },
    intents: (where: string) => {
      const db = new PostgresConnection(where);
      const rows = db.prepare('SELECT id, strategy_id FROM intents ORDER BY id').all() as Array<{ id: number; strategy_id: string }>;
      db.close();
      return rows;
    },
  },
];

describe.each(backends)('fencing across processes: $name', ({ backend, fresh, intents }) => {
  it("a newer holder's first write locks out an older one writing at the same time, atomically", async () => {
    const where = fresh();
    let newer: Promise<Outcome> | undefined;
    const older = await writer({ backend, where, token: 7, max: 20_000, tag: 'older', pauseMs: 1 }, () => {
      newer = writer({ backend, where, token: 8, max: 50, tag: 'newer' });
    });
    const second = await newer!;
    expect(older.fenced).toEqual({ token: 7, storeToken: 8 });
    expect(second).toEqual({ written: 50 });
    const rows = intents(where);
    const olderIds = rows.filter((r) => r.strategy_id === 'older').map((r) => r.id);
    const newerIds = rows.filter((r) => r.strategy_id === 'newer').map((r) => r.id);
    expect(olderIds).toHaveLength(older.written);
    expect(newerIds).toHaveLength(50);
    expect(Math.max(...olderIds)).toBeLessThan(Math.min(...newerIds));
    // The older holder, started again with its token, writes nothing; with a newer one it writes.
    expect(await writer({ backend, where, token: 7, max: 5, tag: 'again' })).toEqual({ written: 0, fenced: { token: 7, storeToken: 8 } });
    expect(await writer({ backend, where, token: 9, max: 5, tag: 'again' })).toEqual({ written: 5 });
  }, 60_000);
});

describe('a holder frozen in the middle of a write transaction (PostgreSQL)', () => {
  it('does not hold up the next holder: its open transaction ends with its session, and the newer token is recorded', () => {
    const where = freshPostgresUrl('frozen');
    const older = new PostgresJournal(where, { clientOidPrefix: 'sx' });
    older.fence(3);
    // The older holder's connection takes the fence row's lock and goes quiet inside its transaction (as a process
    // stopped mid-write leaves it).
    const frozen = new PostgresConnection(where);
    frozen.exec('BEGIN; UPDATE journal_fence SET token = 3 WHERE id = 1');
    const newer = new PostgresJournal(where, { clientOidPrefix: 'sx' });
    const t0 = Date.now();
    // Waits for the frozen session to be ended (5 s idle in its transaction), well within the 10 s lock wait.
    newer.fence(4);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4000);
    expect(() => older.recordIntent('mm', 'place', '{}', 1)).toThrow(JournalFencedError);
    const check = new PostgresConnection(where);
    expect(check.prepare('SELECT token FROM journal_fence').all()).toEqual([{ token: 4 }]);
    check.close();
    for (const c of [older, newer, frozen]) c.close();
  }, 30_000);
});

describe('tryFence: the fence without waiting on a lock another process holds', () => {
  it('SQLite: false at once while another connection holds the write lock (nothing recorded, still unfenced, the busy timeout back); true once it lets go', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sextant-fence-')), 'journal.sqlite');
    const journal = new SqliteJournal(file, { clientOidPrefix: 'sx' });
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const t0 = Date.now();
    expect(journal.tryFence(5)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((journal as unknown as { db: { pragma(s: string, o: object): unknown } }).db.pragma('busy_timeout', { simple: true })).toBe(5000);
    holder.exec('ROLLBACK');
    // Unfenced still: a write under no token goes through although a token was asked for.
    const token = () => (holder.prepare('SELECT token FROM journal_fence WHERE id = 1').get() as { token: number }).token;
    expect(token()).toBe(0);
    expect(journal.tryFence(5)).toBe(true);
    expect(token()).toBe(5);
    expect(() => journal.tryFence(4)).toThrow(JournalFencedError);
    holder.close();
    journal.close();
  });

  it('PostgreSQL: false at once while a session holds the fence row (the lock timeout back); true once it lets go', () => {
    const where = freshPostgresUrl('tryfence');
    const journal = new PostgresJournal(where, { clientOidPrefix: 'sx' });
    const frozen = new PostgresConnection(where);
    frozen.exec('BEGIN; UPDATE journal_fence SET token = 3 WHERE id = 1');
    const t0 = Date.now();
    expect(journal.tryFence(5)).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect((journal as unknown as { db: PostgresConnection }).db.prepare('SHOW lock_timeout').get()).toEqual({ lock_timeout: '10s' });
    frozen.exec('ROLLBACK');
    expect(journal.tryFence(5)).toBe(true);
    expect(frozen.prepare('SELECT token FROM journal_fence').all()).toEqual([{ token: 5 }]);
    for (const c of [journal, frozen]) c.close();
  }, 30_000);
});
