// Opening a SQLite journal whose write lock another process holds (a daemon stopped in the middle of a write: a child
// process that took the lock, then SIGSTOP): what opening must write (the first binding, a pending migration) waits
// for it, logged, without holding up the process, and gives up at journal.lockWaitMs naming the file; a journal that
// needs no write opens at once.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { openJournal, openJournalWaiting, venueOf } from '../../../src/app/kernel-stores.js';
import { parseConfig } from '../../../src/config/load.js';
import { JournalLockedError } from '../../../src/journal/journal-lock-wait.js';
import Database from '../../../src/journal/sqlite-driver.js';
import { MIGRATIONS } from '../../../src/journal/sqlite-migrations.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { systemClock } from '../../../src/util/clock.js';
import { createLogger } from '../../../src/util/logger.js';

const KEYS = { SEXTANT_API_KEY: 'lock-key', SEXTANT_API_SECRET: 'lock-secret', SEXTANT_API_PASSPHRASE: 'lock-pass' };
const VENUE = 'http://127.0.0.1:9';

function live(path: string, lockWaitMs: number) {
  const yaml = `exchange: { spotBaseUrl: "${VENUE}", futuresBaseUrl: "${VENUE}" }\njournal: { path: ${JSON.stringify(path)}, lockWaitMs: ${lockWaitMs} }\n`;
  return parseConfig(yaml, 'live.yaml', KEYS);
}

function freshPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'sextant-locked-')), 'journal.sqlite');
}

/** A journal as an earlier version left it: six migrations of seven applied. */
function olderSchema(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  MIGRATIONS.slice(0, 6).forEach((m, v) => db.exec(`BEGIN; ${m}; PRAGMA user_version = ${v + 1}; COMMIT`));
  db.close();
}

const holders: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const p of holders.splice(0)) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

/** A process that takes the file's write lock and is then stopped (SIGSTOP) while it holds it. */
async function frozenHolder(path: string): Promise<{ release(): Promise<void> }> {
  const p = spawn(process.execPath, ['test/fixtures/journal-lock-holder.mjs', path], { env: { PATH: process.env.PATH } });
  holders.push(p);
  let out = '';
  p.stdout.on('data', (d) => (out += String(d)));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`the holder did not take the lock: ${out}`)), 10_000);
    p.stdout.on('data', () => out.includes('holding\n') && (clearTimeout(t), resolve()));
  });
  p.kill('SIGSTOP');
  return {
    // Resumed, it commits its write and ends: the lock let go.
    release: async () => {
      const ended = new Promise<void>((resolve) => p.on('close', () => resolve()));
      p.kill('SIGCONT');
      p.stdin.write('release\n');
      await ended;
    },
  };
}

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', base: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { logger, lines };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('opening a journal another process holds locked', () => {
  it('the first binding waits for a frozen holder, saying so once, and binds once it lets go', async () => {
    const path = freshPath();
    new SqliteJournal(path, { clientOidPrefix: 'sx' }).close();
    const holder = await frozenHolder(path);
    const loaded = live(path, 30_000);
    const { logger, lines } = capture();
    const t0 = Date.now();
    let settled = false;
    const opening = openJournalWaiting(loaded, venueOf(loaded), { clock: systemClock, logger });
    void opening.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Past SQLite's busy timeout of 5 s: still waiting, without holding up this process (this sleep runs).
    await sleep(6000);
    expect(settled).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        component: 'journal',
        journal: path,
        lockWaitMs: 30_000,
        msg: expect.stringMatching(/locked by another process/),
      }),
    ]);
    await holder.release();
    const journal = await opening;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(6000);
    expect(journal.venueBinding()).toEqual({ venue: `${VENUE} ${VENUE}`, account: venueOf(loaded).account });
    journal.close();
    expect(lines[1]).toMatchObject({ level: 'info', journal: path, msg: expect.stringMatching(/journal opened/) });
    expect(lines[1]!.waitedMs).toBeGreaterThanOrEqual(6000);
  }, 30_000);

  it('a pending migration gives up at journal.lockWaitMs with an error naming the file, and leaves the file as it was', async () => {
    const path = freshPath();
    olderSchema(path);
    const holder = await frozenHolder(path);
    const loaded = live(path, 1500);
    const { logger, lines } = capture();
    const t0 = Date.now();
    const err = await openJournalWaiting(loaded, venueOf(loaded), { clock: systemClock, logger }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(JournalLockedError);
    expect((err as Error).message).toContain(`journal ${path} stayed locked by another process for`);
    expect((err as Error).message).toContain('(journal.lockWaitMs)');
    expect(took).toBeGreaterThanOrEqual(1500);
    expect(took).toBeLessThan(4000);
    expect(lines.map((l) => l.level)).toEqual(['warn']);
    await holder.release();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(6);
    db.close();
    // Once let go, the same open migrates it at once.
    const journal = await openJournalWaiting(loaded, venueOf(loaded), { clock: systemClock, logger });
    expect((journal as SqliteJournal).schemaVersion).toBe(MIGRATIONS.length);
    journal.close();
  }, 30_000);

  it('a stop ends the wait with its own error', async () => {
    const path = freshPath();
    olderSchema(path);
    await frozenHolder(path);
    const loaded = live(path, 30_000);
    const t0 = Date.now();
    const stop = sleep(800).then(() => new Error('stopped (SIGTERM)'));
    await expect(openJournalWaiting(loaded, venueOf(loaded), { clock: systemClock, logger: capture().logger, until: stop })).rejects.toThrow(
      'stopped (SIGTERM)',
    );
    expect(Date.now() - t0).toBeLessThan(3000);
  }, 30_000);

  it('a journal bound and up to date opens at once: reads do not wait on the lock', async () => {
    const path = freshPath();
    const loaded = live(path, 30_000);
    openJournal(loaded, venueOf(loaded)).close();
    await frozenHolder(path);
    const { logger, lines } = capture();
    const t0 = Date.now();
    const journal = await openJournalWaiting(loaded, venueOf(loaded), { clock: systemClock, logger });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(lines).toEqual([]);
    journal.close();
  }, 30_000);

  it('the synchronous open (commands) gives up after the busy timeout naming the file, not with a bare SQLITE_BUSY', async () => {
    const path = freshPath();
    olderSchema(path);
    await frozenHolder(path);
    expect(() => openJournal(live(path, 30_000))).toThrow(
      new RegExp(`^journal ${path} stayed locked by another process for \\d+ ms \\(SQLite's busy timeout\\)`),
    );
  }, 30_000);
});
