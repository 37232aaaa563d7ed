// The SQL journal's writing: statements prepared once per text, writes handed over without waiting where the store
// can take them so, write transactions, commits left unflushed where an order's row flushes them later, and the
// fence every write transaction passes first once fence() was called (the lease's token: journal-fence.ts).
import { checkFenceToken, passFence } from './journal-fence.js';
import type { HeldWrites } from './held-writes.js';
import type { SqlDatabase, SqlStatement, ThreadDatabase } from './sqlite-thread.js';
import { runWithSettings, type NoWaitWrite, type TransactionSettings } from './transaction-settings.js';

/** What runs the journal's statements: a database, and in memory the thread it may be on. */
export interface SqlJournalStore {
  /** better-sqlite3's database, a SQLite database on a thread, or a PostgreSQL connection (postgres-connection.ts). */
  db: SqlDatabase;
  /** In memory (nothing survives the process, nobody else reads or writes). */
  inMemory: boolean;
  /** The in-memory database's thread, when it is on one. */
  thread?: ThreadDatabase | undefined;
  /** How a commit is left unflushed (on disk; not used in memory). */
  unflushed: TransactionSettings;
  /** The settings of a flushed commit an order is sent after (on disk; not used in memory). */
  beforeSend: TransactionSettings;
  /** How a write takes the write lock without waiting for another connection (tryFence). */
  noWait: NoWaitWrite;
}

export abstract class SqlWrites {
  protected readonly db: SqlDatabase;
  /** The same database, when it is on a worker thread. */
  protected readonly thread: ThreadDatabase | undefined;
  protected readonly inMemory: boolean;
  /**
   * In memory: the hot writes (intents, client ids, orders and their history, fills, equity) wait there until
   * anything else reads or writes the database (held-writes.ts); undefined on disk, where each is durable at once.
   */
  protected held: HeldWrites | undefined;
  private readonly statements = new Map<string, SqlStatement>();
  /** Runs a thunk as one transaction, the fence checked first. */
  private readonly txRun: (fn: () => unknown) => unknown;
  private inTx = false;

  constructor(store: SqlJournalStore) {
    ({ db: this.db, thread: this.thread, inMemory: this.inMemory, unflushed: this.unflushed, beforeSend: this.beforeSend, noWait: this.noWait } = store);
    // Wrapped once: wrapping costs more than running a small transaction.
    this.txRun = this.db.transaction((fn: () => unknown) => {
      this.checkFence();
      return fn();
    });
  }

  /**
   * A prepared statement, prepared once per text (preparing costs more than running most of them), once the
   * writes held back (in memory) are in the database.
   */
  protected sql(text: string): SqlStatement {
    this.held?.queue.flush();
    return this.prepared(text);
  }

  protected prepared(text: string): SqlStatement {
    let st = this.statements.get(text);
    if (!st) this.statements.set(text, (st = this.db.prepare(text)));
    return st;
  }

  /**
   * A write whose outcome is not read. On a thread it is handed over without waiting, after the held writes (a
   * failure is told by the next call that waits); on a PostgreSQL connection it goes with the transaction's next
   * call that waits (its commit at the latest), or at once outside a transaction.
   */
  protected write(text: string, ...params: unknown[]): void {
    if (!this.db.later) {
      this.sql(text).run(...params);
      return;
    }
    this.held?.queue.flush();
    this.db.later(text, params);
  }

  /**
   * Runs `fn` as a write transaction: always when `whole` (several statements), otherwise once fenced (a single
   * statement is a transaction of its own). The fence is checked first; in memory, or in a transaction already, `fn`
   * just runs.
   */
  protected writing<R>(fn: () => R, whole = false): R {
    if (this.inMemory || this.inTx || (!whole && this.fenceToken === undefined)) return fn();
    this.inTx = true;
    try {
      return this.txRun(fn) as R;
    } finally {
      this.inTx = false;
    }
  }

  private readonly unflushed: TransactionSettings;
  private readonly beforeSend: TransactionSettings;
  private readonly noWait: NoWaitWrite;

  /** Runs `fn` as one flushed write transaction that an order is sent after (the order rows: insertOrders). */
  protected writingBeforeSend<R>(fn: () => R): R {
    if (this.inMemory || this.inTx) return fn();
    return runWithSettings(this.db, this.beforeSend, (first) => this.writing(() => (first(), fn()), true));
  }

  /**
   * Runs `fn` (one statement) as a write transaction of its own, fenced like every other, whose commit is not flushed
   * to disk on its own: the intent record and the client id reservation, written before an order's row. They need no
   * flush of their own: the store's log (SQLite's WAL, PostgreSQL's) is written in order and a flushed commit flushes
   * it up to itself, so the order rows' flushed commit (insertOrders) makes them durable too, before the executor
   * sends anything. Lost in a crash (a power loss) before that commit, nothing was sent under them: the executor sends
   * an order only once insertOrders has returned, so no order with those client ids reached the venue, and handing
   * them out again is harmless. A client id that may have reached the venue is never handed out again: its
   * reservation was committed before its order's row, which was flushed before the send.
   */
  protected writingUnflushed<R>(fn: () => R): R {
    if (this.inMemory || this.inTx) return fn();
    return runWithSettings(this.db, this.unflushed, (first) => this.writing(() => (first(), fn()), true));
  }

  /** The token of the lease this journal writes under; undefined: unfenced. */
  private fenceToken: number | undefined;

  fence(token: number): void {
    checkFenceToken(token);
    this.fenceToken = token;
    // Recorded at once: an older holder is locked out from now on, not only from this holder's first write.
    this.writing(() => undefined, true);
  }

  tryFence(token: number): boolean {
    checkFenceToken(token);
    const before = this.fenceToken;
    this.fenceToken = token;
    try {
      runWithSettings(this.db, this.noWait.settings, (first) => this.writing(first, true));
      return true;
    } catch (err) {
      if (!this.noWait.busy(err)) throw err;
      // Nothing recorded: the journal writes as it did before.
      this.fenceToken = before;
      return false;
    }
  }

  /**
   * Runs `fn` (this journal's reads and writes) without waiting on another process's hold of the write lock: a write
   * then fails at once with the store's busy error (isBusy) and writes nothing. In memory, or in a transaction, `fn`
   * just runs.
   */
  withoutWaiting<R>(fn: () => R): R {
    if (this.inMemory || this.inTx) return fn();
    return runWithSettings(this.db, this.noWait.settings, fn);
  }

  /** Whether `err` says another process held the write lock (a write under withoutWaiting). */
  isBusy(err: unknown): boolean {
    return this.noWait.busy(err);
  }

  /** The fence passed inside a write transaction (journal-fence.ts); in memory there is one writer. */
  private checkFence(): void {
    if (this.fenceToken !== undefined && !this.inMemory) passFence((sql) => this.prepared(sql), this.fenceToken);
  }
}
