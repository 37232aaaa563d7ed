// The journal in PostgreSQL (for fleets: several daemons and operators on one database): the same statements as
// SQLite's (sql-journal.ts), run over a connection the journal calls synchronously (postgres-connection.ts); every
// write committed before the call returns. Times are BIGINT ms, money and ids TEXT.
import { redactUrlCredentials, registerUrlCredentials } from '../util/logger.js';
import { PostgresConnection } from './postgres-connection.js';
import { migrate, postgresSchemaVersion } from './postgres-migrations.js';
import { LOCK_TIMEOUT_MS } from './postgres-protocol.js';
import type { NoWaitWrite } from './transaction-settings.js';
import { checkClientOidPrefix, SqlJournal, type SqlJournalOptions } from './sql-journal.js';

/** Connects and migrates; an error names the database with its password redacted. */
function connect(url: string): PostgresConnection {
  registerUrlCredentials(url);
  const db = new PostgresConnection(url);
  try {
    migrate(db);
    return db;
  } catch (err) {
    db.close();
    throw new Error(`journal ${redactUrlCredentials(url)}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * A write that does not wait for another session's lock: 1 ms at most (0 would mean no limit), then lock_not_available.
 * Set for the session around the transaction (the fence's update is its first statement).
 */
const NO_WAIT: NoWaitWrite = {
  settings: { before: 'SET lock_timeout = 1', after: `SET lock_timeout = ${LOCK_TIMEOUT_MS}` },
  busy: (err) => (err as { code?: unknown } | null)?.code === '55P03',
};

export class PostgresJournal extends SqlJournal {
  /** The database, as it may be shown (password redacted). */
  readonly where: string;

  constructor(url: string, opts: SqlJournalOptions) {
    checkClientOidPrefix(opts.clientOidPrefix);
    // A commit left unflushed: not waited for until its WAL is on disk; a later synchronous commit flushes the WAL past it.
    super({ db: connect(url), inMemory: false, unflushed: { first: 'SET LOCAL synchronous_commit = off' }, beforeSend: {}, noWait: NO_WAIT }, opts);
    this.where = redactUrlCredentials(url);
  }

  /** Another connection's commits are not counted: refresh() reads the active rows and compares. */
  protected commitMark(): undefined {
    return undefined;
  }

  get schemaVersion(): number {
    return postgresSchemaVersion(this.db as PostgresConnection);
  }

  /** PostgreSQL's autovacuum keeps the tables and their statistics. */
  maintain(): void {}
}
