// A SQLite database in memory on a worker thread (sqlite-thread-worker.ts owns it), for a writer that should not
// wait for its writes: `later` and exec() hand statements over and send() posts those handed over, without waiting;
// every other call waits for its answer (sync-thread.ts). The thread runs everything in the order it was given. A write
// handed over that fails is told, with SQLite's message, by the next call that waits, or by the next send() that
// finds the thread has flagged it.
import Database from './sqlite-driver.js';
import { SLOT, type Call, type Request, type WireError } from './sqlite-thread-protocol.js';
import { SyncThread, threadScript } from './sync-thread.js';

/** What the journal uses of a prepared statement: better-sqlite3's, or one of a database on a thread. */
export interface SqlStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** What the journal uses of a database: better-sqlite3's, or a ThreadDatabase. */
export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  /**
   * Runs a statement whose outcome is not read, after everything given before, when the database is one a caller
   * does not wait for (a thread, a connection); undefined when each statement runs at once.
   */
  later?(sql: string, params: unknown[]): void;
  /** Runs statements (on a thread: handed over without waiting; a failure is told by the next call that waits). */
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  readonly inTransaction: boolean;
  serialize(): Uint8Array;
  close(): unknown;
}

function thrown(e: WireError): Error {
  return e.code !== undefined ? new Database.SqliteError(e.message, e.code) : new Error(e.message);
}

class ThreadStatement implements SqlStatement {
  constructor(
    private readonly db: ThreadDatabase,
    readonly id: number,
  ) {}

  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint } {
    return this.db.call(['run', this.id, params]) as { changes: number; lastInsertRowid: number | bigint };
  }

  get(...params: unknown[]): unknown {
    return this.db.call(['get', this.id, params]);
  }

  all(...params: unknown[]): unknown[] {
    return this.db.call(['all', this.id, params]) as unknown[];
  }
}

export class ThreadDatabase implements SqlDatabase {
  private readonly thread = new SyncThread(threadScript('sqlite-thread-worker'), {}, thrown);
  /** Statement texts by number; those not sent yet. */
  private readonly ids = new Map<string, number>();
  private defs: Array<[number, string]> = [];
  /** Writes handed over and not sent yet: a statement's number, then its parameters (null: the text is exec'd). */
  private writes: Array<number | unknown[] | null> = [];

  /** A statement: prepared on the thread at its first use (a text that does not prepare fails there, every time). */
  prepare(sql: string): ThreadStatement {
    return new ThreadStatement(this, this.id(sql));
  }

  /** Runs `sql` with `params` after everything given before, without waiting: sent by send() or the next call. */
  later(sql: string, params: unknown[]): void {
    this.writes.push(this.id(sql), params);
  }

  /** The number of a statement's text (sent with the next message, the first time). */
  private id(sql: string): number {
    let id = this.ids.get(sql);
    if (id === undefined) {
      this.ids.set(sql, (id = this.ids.size));
      this.defs.push([id, sql]);
    }
    return id;
  }

  /** Posts what was handed over; throws the failure of a write posted before once the thread has flagged it (or ended). */
  send(): void {
    if (this.writes.length > 0) this.thread.post(this.request(undefined));
    if (this.thread.flag(SLOT.failed) === 1 || this.thread.flag(SLOT.ended) === 1) this.call(['check']);
  }

  /** What waits to be sent, and `call`. */
  private request(call: Call | undefined): Request {
    const m: Request = {};
    if (this.defs.length > 0) {
      m.defs = this.defs;
      this.defs = [];
    }
    if (this.writes.length > 0) {
      m.writes = this.writes;
      this.writes = [];
    }
    if (call) m.call = call;
    return m;
  }

  /** Sends `call` after everything given before and waits for its answer. */
  call(call: Call): unknown {
    if (this.thread.isClosed) throw new TypeError('The database connection is not open');
    return this.thread.call(this.request(call));
  }

  /** Hands `sql` over (statements run as db.exec runs them), without waiting. */
  exec(sql: string): this {
    this.writes.push(this.id(sql), null);
    return this;
  }

  pragma(sql: string, options: { simple?: boolean } = {}): unknown {
    return this.call(['pragma', sql, options.simple === true]);
  }

  get inTransaction(): boolean {
    return this.call(['inTransaction']) as boolean;
  }

  /** `fn` in a transaction (BEGIN, COMMIT; ROLLBACK when it throws). Not nested. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      this.exec('BEGIN');
      try {
        const out = fn(...args);
        this.exec('COMMIT');
        return out;
      } catch (err) {
        if (this.inTransaction) this.exec('ROLLBACK');
        throw err;
      }
    };
  }

  /** The database's pages, copied over from the thread. */
  serialize(): Uint8Array {
    return this.call(['serialize']) as Uint8Array;
  }

  /** Writes the database's pages to `file` (on the thread). */
  saveTo(file: string): void {
    this.call(['save', file]);
  }

  /** Closes the database and ends the thread (a failure not told yet is thrown, the thread ended all the same). */
  close(): void {
    if (this.thread.isClosed) return;
    this.thread.close(this.request(['close']));
  }
}
