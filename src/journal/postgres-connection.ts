// A PostgreSQL connection the journal calls synchronously (the executor writes an order durably before it sends it):
// the pg driver runs on a worker thread (postgres-thread-worker.ts) and each call waits for its answer there
// (sync-thread.ts). Statements are the journal's SQL with `?` placeholders, numbered `$n` here. Inside a transaction,
// statements whose outcome is not read are held and sent with the next call that waits (the COMMIT at the latest), so
// a transaction costs few round trips; outside one, every statement is waited for.
import { scrubSecrets } from '../util/logger.js';
import type { Mode, PostgresRequest, Statement } from './postgres-protocol.js';
import type { SqlDatabase, SqlStatement } from './sqlite-thread.js';
import type { WireError } from './sync-thread-protocol.js';
import { SyncThread, threadScript } from './sync-thread.js';

/** An error of the database (its SQLSTATE as `code`), its text scrubbed of secrets. */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'PostgresError';
  }
}

/** `?` placeholders as `$1`, `$2` … (those inside quoted literals left alone). */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let quoted = false;
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === '?' && !quoted ? `$${++n}` : ch;
  }
  return out;
}

export class PostgresConnection implements SqlDatabase {
  private readonly thread: SyncThread;
  /** Statements held until the next call that waits. */
  private pending: Statement[] = [];
  private open = false;
  private readonly texts = new Map<string, string>();

  constructor(url: string) {
    this.thread = new SyncThread(threadScript('postgres-thread-worker'), { url }, (e: WireError) => new PostgresError(scrubSecrets(e.message), e.code));
  }

  private text(sql: string): string {
    let text = this.texts.get(sql);
    if (text === undefined) this.texts.set(sql, (text = numberPlaceholders(sql)));
    return text;
  }

  /** Sends what is held, then `last`, and waits for the answer of the last statement. */
  private call(last?: Statement): unknown {
    const batch = this.pending;
    this.pending = [];
    if (last) batch.push(last);
    return this.thread.call({ batch } satisfies PostgresRequest);
  }

  private statement(sql: string, params: unknown[], mode: Mode): unknown {
    return this.call([this.text(sql), params, mode]);
  }

  prepare(sql: string): SqlStatement {
    return {
      run: (...params: unknown[]) => this.statement(sql, params, 'run') as { changes: number; lastInsertRowid: number },
      get: (...params: unknown[]) => this.statement(sql, params, 'get'),
      all: (...params: unknown[]) => this.statement(sql, params, 'all') as unknown[],
    };
  }

  later(sql: string, params: unknown[]): void {
    this.pending.push([this.text(sql), params, 'run']);
    if (!this.open) this.call();
  }

  /** Runs a script (statements without parameters). */
  exec(sql: string): this {
    this.pending.push([sql, [], 'exec']);
    if (!this.open) this.call();
    return this;
  }

  pragma(): never {
    throw new Error('PostgreSQL has no pragmas');
  }

  get inTransaction(): boolean {
    return this.open;
  }

  /** `fn` in a transaction (BEGIN, COMMIT; ROLLBACK when it or the commit fails). Not nested. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      if (this.open) throw new Error('a PostgreSQL journal transaction does not nest');
      this.pending.push(['BEGIN', [], 'exec']);
      this.open = true;
      try {
        const out = fn(...args);
        this.open = false;
        this.call(['COMMIT', [], 'exec']);
        return out;
      } catch (err) {
        this.open = false;
        this.pending = [];
        this.rollback();
        throw err;
      }
    };
  }

  /** Ends a transaction that failed (nothing to do when none is open on the server). */
  private rollback(): void {
    try {
      this.call(['ROLLBACK', [], 'exec']);
    } catch {
      // A connection that broke has no transaction left open.
    }
  }

  serialize(): never {
    throw new Error('a PostgreSQL journal cannot be serialized');
  }

  close(): void {
    this.thread.close({ close: true } satisfies PostgresRequest);
  }
}
