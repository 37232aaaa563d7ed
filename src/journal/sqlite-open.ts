// The journal's database opened: a file made owner-only and opened with better-sqlite3 (WAL, synchronous FULL), or
// one in memory, on a worker thread unless asked otherwise (sqlite-thread.ts); its schema brought up to date.
// Schema migrations (sqlite-migrations.ts) are numbered and applied in order, each in its own transaction.
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from './sqlite-driver.js';
import { MIGRATIONS } from './sqlite-migrations.js';
import { ThreadDatabase, type SqlDatabase } from './sqlite-thread.js';
import type { NoWaitWrite, TransactionSettings } from './transaction-settings.js';

/** How long a write waits for another connection's lock (ms); PostgreSQL's lock timeout is the same. */
const BUSY_TIMEOUT_MS = 5000;

/** An order must be on disk before it is sent: every commit is flushed (the WAL synced up to it). */
const FLUSHED = 'PRAGMA synchronous = FULL';

/** SQLite's own number of WAL pages past which a commit folds the WAL into the database (a checkpoint). */
const WAL_AUTOCHECKPOINT_PAGES = 1000;

/**
 * A commit an order waits on before it is sent (the order rows' flushed commit, the intent's and client ids'
 * unflushed ones) runs no checkpoint: SQLite would run one after the commit, before the call returns, copying the
 * WAL into the database and syncing both (milliseconds, on the order's way to the venue). The next commit that
 * crosses the threshold runs it instead: an order's answer, a fill, an equity reading, all after the send. The
 * setting is the connection's, said outside the transaction.
 */
export const SQLITE_BEFORE_SEND: TransactionSettings = {
  before: 'PRAGMA wal_autocheckpoint = 0',
  after: `PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`,
};

/**
 * A commit left unflushed (sql-journal.ts), before a send as well (SQLITE_BEFORE_SEND): NORMAL, not OFF. OFF would
 * also skip the syncs of a checkpoint if the commit ran one (the WAL synced before its frames are copied into the
 * database, the database after): earlier flushed commits could then be left only in an unsynced database file, their
 * WAL frames overwritten. The setting cannot change inside a transaction.
 */
export const SQLITE_UNFLUSHED: TransactionSettings = {
  before: `PRAGMA synchronous = NORMAL; ${SQLITE_BEFORE_SEND.before}`,
  after: `${FLUSHED}; ${SQLITE_BEFORE_SEND.after}`,
};

/** A write that fails at once (SQLITE_BUSY) when another connection holds the write lock. */
export const SQLITE_NO_WAIT: NoWaitWrite = {
  settings: { before: 'PRAGMA busy_timeout = 0', after: `PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}` },
  busy: (err) => {
    const code = (err as { code?: unknown } | null)?.code;
    return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
  },
};

/**
 * Opens the journal's database and brings its schema up to date. With `noWait` (a file), a migration that finds the
 * write lock held by another connection fails at once (SQLITE_BUSY) instead of after the busy timeout: for an opener
 * that waits on its own terms (journal-lock-wait.ts). A failed open closes what it opened.
 */
export function openDatabase(path: string, onThread: boolean, noWait = false): { db: SqlDatabase; thread: ThreadDatabase | undefined } {
  if (path !== ':memory:') {
    // Owner only: the journal holds every order and the account's activity. SQLite gives its -wal and -shm
    // files the database file's mode.
    closeSync(openSync(path, 'a', 0o600));
    chmodSync(path, 0o600);
  }
  if (path === ':memory:' && onThread) {
    // A new database: its set-up handed over, not waited for (the thread starts meanwhile).
    const thread = new ThreadDatabase();
    thread.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    MIGRATIONS.forEach((m, v) => thread.exec(`BEGIN; ${m}; PRAGMA user_version = ${v + 1}; COMMIT`));
    return { db: thread, thread };
  }
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${noWait ? 0 : BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.exec(`${FLUSHED}; ${SQLITE_BEFORE_SEND.after}`);
    for (let v = schemaVersion(db); v < MIGRATIONS.length; v++) {
      db.transaction(() => {
        db.exec(MIGRATIONS[v]!);
        db.pragma(`user_version = ${v + 1}`);
      })();
    }
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (err) {
    db.close();
    throw err;
  }
  return { db, thread: undefined };
}

/** The schema version in use. */
export function schemaVersion(db: SqlDatabase): number {
  return db.pragma('user_version', { simple: true }) as number;
}
