// The journal in SQLite (better-sqlite3, WAL, synchronous FULL): orders are on disk before they are sent.
// Backtests keep it in memory (path ':memory:'), on a worker thread (sqlite-thread.ts) so that their writes cost the
// simulation little, and save a copy at the end. Opening and the schema's migrations: sqlite-open.ts; the statements,
// shared with PostgreSQL: sql-journal.ts.
import { writeFileSync } from 'node:fs';
import { checkClientOidPrefix, SqlJournal, type SqlJournalOptions } from './sql-journal.js';
import { openDatabase, schemaVersion, SQLITE_BEFORE_SEND, SQLITE_NO_WAIT, SQLITE_UNFLUSHED } from './sqlite-open.js';

export interface SqliteJournalOptions extends SqlJournalOptions {
  /** In memory: the database on a worker thread, its writes not waited for (the default). Ignored on disk. */
  thread?: boolean;
  /**
   * A file: opening fails at once (SQLITE_BUSY) when its schema needs a migration and another process holds the write
   * lock, rather than after the busy timeout (openDatabase). For an opener that waits on its own terms.
   */
  noWait?: boolean;
}

export class SqliteJournal extends SqlJournal {
  constructor(
    readonly path: string,
    opts: SqliteJournalOptions,
  ) {
    checkClientOidPrefix(opts.clientOidPrefix);
    super(
      {
        ...openDatabase(path, opts.thread !== false, opts.noWait),
        inMemory: path === ':memory:',
        unflushed: SQLITE_UNFLUSHED,
        beforeSend: SQLITE_BEFORE_SEND,
        noWait: SQLITE_NO_WAIT,
      },
      opts,
    );
  }

  /** data_version moves only when another connection commits. */
  protected commitMark(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  /** Writes a consistent copy of the whole journal to a new file (an in-memory journal kept after a backtest). */
  saveTo(file: string): void {
    this.held?.queue.flush();
    // The in-memory database's pages written as they are (a fraction of the time of VACUUM INTO, the same rows); a
    // file journal is copied compacted.
    // On a thread, the thread writes them.
    const thread = this.thread;
    this.outsideTransaction(() =>
      thread ? thread.saveTo(file) : this.inMemory ? writeFileSync(file, this.db.serialize()) : this.db.prepare('VACUUM INTO ?').run(file),
    );
  }

  /** Runs `fn` with the in-memory journal's long transaction committed (what needs no transaction open). */
  private outsideTransaction(fn: () => void): void {
    if (!this.inMemory) return fn();
    this.held?.queue.flush();
    this.db.exec('COMMIT');
    try {
      fn();
    } finally {
      this.db.exec('BEGIN');
    }
  }

  /** The schema version in use. */
  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  /** Housekeeping: folds the WAL back into the database and refreshes the query planner's statistics. */
  maintain(): void {
    this.outsideTransaction(() => {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.pragma('optimize');
    });
  }
}
