// The in-memory journal's writes, held in order until something reads the database (a backtest's journal: nobody
// else reads it, and nothing survives the process to make durable). The journal's own copies answer its hot reads
// meanwhile. An order row goes to the table once with its latest values instead of being inserted and then updated
// at every change; the rest goes as it came, many rows per statement. The tables end up holding exactly what writing
// each change at once would have left: the same rows, with the same ids, in the same order.
import type { JournalOrder } from './journal.js';

/**
 * Rows written with one statement at most. A flush writes what it holds in statements of 128, 64, 32 … 1 rows: few
 * texts to prepare (preparing a statement of many rows costs more than running it), however many rows wait.
 */
const BATCH_ROWS = 128;
/**
 * Writes held at most, by default: beyond, they go (a long backtest's journal would otherwise sit in the heap until
 * its end).
 */
const MAX_PENDING = 20_000;

/** A prepared statement of the journal's database. */
export interface Statement {
  run(...params: unknown[]): unknown;
}

/**
 * A table's rows waiting to be inserted: their values one after another in `columns` order (no array per row), or,
 * for the orders table, the row objects themselves (written with the values they hold then).
 */
export class TableQueue {
  values: unknown[] = [];
  rows = 0;
  /** The statement inserting n rows, by n. */
  readonly statements: Statement[] = [];

  constructor(
    readonly table: string,
    readonly columns: readonly string[],
    readonly rowObjects = false,
  ) {}
}

export class WriteBehind {
  /**
   * The tables written since the last flush, in the order each was first written: the first insert into a table that
   * numbers its rows (AUTOINCREMENT) makes its row in sqlite_sequence, so tables are written in that same order.
   */
  private queued: TableQueue[] = [];
  readonly orders: TableQueue;
  /** Order rows waiting: to be inserted (queued in `orders` too) or rewritten whole (listed in `rewrites`). */
  private readonly waiting = new Map<string, JournalOrder>();
  private rewrites: JournalOrder[] = [];
  private rewrite: Statement | undefined;
  /** Writes of a latest value, once per flush whatever the number of changes (a counter's row). */
  private readonly latest = new Map<string, () => void>();
  private pending = 0;
  private readonly maxPending: number;

  constructor(
    /** Prepares a statement on the journal's database (once per text: the queue keeps what it prepared). */
    private readonly prepare: (sql: string) => Statement,
    /** Order fields, in the table's column order, and their columns. */
    private readonly orderKeys: ReadonlyArray<keyof JournalOrder>,
    private readonly orderColumns: readonly string[],
    /** A field's value as the table stores it. */
    private readonly toDb: (v: unknown) => unknown,
    private readonly opts: {
      /** Called once a flush has run all its statements (statements that only hand their writes on send them then). */
      flushed?: () => void;
      /** Writes held at most (MAX_PENDING by default). */
      maxPending?: number;
    } = {},
  ) {
    this.maxPending = opts.maxPending ?? MAX_PENDING;
    this.orders = new TableQueue('orders', orderColumns, true);
  }

  /** A queue for `table`'s `columns`: its holder pushes a row's values onto `values`, then calls added(). */
  table(table: string, columns: readonly string[]): TableQueue {
    return new TableQueue(table, columns);
  }

  /** Counts the row just pushed onto `q`. */
  added(q: TableQueue): void {
    if (q.rows++ === 0) this.queued.push(q);
    if (++this.pending >= this.maxPending) this.flush();
  }

  /** Queues a new order row: written with whatever values the object holds when the queue is written. */
  insertOrder(row: JournalOrder): void {
    this.waiting.set(row.clientOid, row);
    this.orders.values.push(row);
    this.added(this.orders);
  }

  /** The waiting row of an order, when one waits (changes made to it are what gets written). */
  order(clientOid: string): JournalOrder | undefined {
    return this.waiting.get(clientOid);
  }

  /** An order row already in the table changed: it is written again, whole, with the values it holds then. */
  changedOrder(row: JournalOrder): void {
    if (this.waiting.has(row.clientOid)) return;
    this.waiting.set(row.clientOid, row);
    this.rewrites.push(row);
    this.pending++;
  }

  /** Runs `write` at the next flush, once however often it is asked for under `key` (it writes the value then). */
  once(key: string, write: () => void): void {
    if (this.latest.has(key)) return;
    this.latest.set(key, write);
    this.pending++;
  }

  /** Writes everything waiting, table by table in the order first written, each table's rows in order. */
  flush(): void {
    if (this.pending === 0) return;
    const queued = this.queued;
    const rewrites = this.rewrites;
    this.queued = [];
    this.rewrites = [];
    this.pending = 0;
    for (const q of queued) {
      const { values, rows } = q;
      q.values = [];
      q.rows = 0;
      const width = q.columns.length;
      for (let i = 0; i < rows;) {
        let n = BATCH_ROWS;
        while (n > rows - i) n >>= 1;
        // Order rows are queued as the objects themselves: their values now.
        const args = q.rowObjects ? this.orderArgs(values as JournalOrder[], i, n) : n === rows ? values : values.slice(i * width, (i + n) * width);
        this.statement(q, n).run(...args);
        i += n;
      }
    }
    if (rewrites.length > 0) {
      this.rewrite ??= this.prepare(`UPDATE orders SET ${this.orderColumns.map((c) => `${c} = ?`).join(', ')} WHERE client_oid = ?`);
      for (const row of rewrites) {
        const args = this.orderArgs([row], 0, 1);
        args.push(row.clientOid);
        this.rewrite.run(...args);
      }
    }
    this.waiting.clear();
    const latest = [...this.latest.values()];
    this.latest.clear();
    for (const write of latest) write();
    this.opts.flushed?.();
  }

  /** The values of `n` order rows from `from`, one row after another. */
  private orderArgs(rows: readonly JournalOrder[], from: number, n: number): unknown[] {
    const keys = this.orderKeys;
    const toDb = this.toDb;
    const args: unknown[] = [];
    for (let k = from; k < from + n; k++) {
      const row = rows[k]!;
      for (let c = 0; c < keys.length; c++) args.push(toDb(row[keys[c]!]));
    }
    return args;
  }

  /** The statement inserting `n` rows into `q`'s table. */
  private statement(q: TableQueue, n: number): Statement {
    let st = q.statements[n];
    if (!st) {
      const one = `(${q.columns.map(() => '?').join(',')})`;
      st = q.statements[n] = this.prepare(`INSERT INTO ${q.table} (${q.columns.join(',')}) VALUES ${Array<string>(n).fill(one).join(',')}`);
    }
    return st;
  }
}
