// The in-memory journal's writes, held in order until something reads the database (a backtest's journal: nobody
// else reads it, and nothing survives the process to make durable). The journal's own copies answer its hot reads
// meanwhile. An order row goes to the table once with its latest values instead of being inserted and then updated
// at every change; the rest goes as it came, many rows per statement. The tables end up holding exactly what writing
// each change at once would have left: the same rows, with the same ids, in the same order.
import type { JournalOrder } from './journal.js';

/** Rows written with one statement at most. */
const BATCH_ROWS = 100;
/** Writes held at most: beyond, they go (a long backtest's journal would otherwise sit in the heap until its end). */
const MAX_PENDING = 20_000;

/** A table's rows waiting to be inserted: each its values in `columns` order (an order row: the row itself). */
interface Inserts {
  table: string;
  columns: readonly string[];
  rows: Array<unknown[] | JournalOrder>;
}

export class WriteBehind {
  /**
   * Per table, in the order each was first written to since the last flush: the first insert into a table that
   * numbers its rows (AUTOINCREMENT) makes its row in sqlite_sequence, so tables are written in that same order.
   */
  private tables = new Map<string, Inserts>();
  /** Order rows waiting: to be inserted (listed in `tables` too, by reference) or rewritten whole. */
  private readonly rows = new Map<string, { row: JournalOrder; inserted: boolean }>();
  /** Writes of a latest value, once per flush whatever the number of changes (a counter's row). */
  private readonly latest = new Map<string, () => void>();
  private readonly texts = new Map<string, string>();
  private pending = 0;

  constructor(
    /** Runs one statement with its arguments on the journal's database. */
    private readonly run: (sql: string, args: unknown[]) => void,
    /** Order fields, in the table's column order, and their columns. */
    private readonly orderKeys: ReadonlyArray<keyof JournalOrder>,
    private readonly orderColumns: readonly string[],
    /** A field's value as the table stores it. */
    private readonly toDb: (v: unknown) => unknown,
  ) {}

  /** Queues a row for `table`'s `columns`. */
  insert(table: string, columns: readonly string[], values: unknown[] | JournalOrder): void {
    let t = this.tables.get(table);
    if (!t) this.tables.set(table, (t = { table, columns, rows: [] }));
    t.rows.push(values);
    if (++this.pending >= MAX_PENDING) this.flush();
  }

  /** Queues a new order row: written with whatever values the object holds when the queue is written. */
  insertOrder(row: JournalOrder): void {
    this.rows.set(row.clientOid, { row, inserted: false });
    this.insert('orders', this.orderColumns, row);
  }

  /** The waiting row of an order, when one waits (changes made to it are what gets written). */
  order(clientOid: string): JournalOrder | undefined {
    return this.rows.get(clientOid)?.row;
  }

  /** An order row already in the table changed: it is written again, whole, with the values it holds then. */
  changedOrder(row: JournalOrder): void {
    if (this.rows.has(row.clientOid)) return;
    this.rows.set(row.clientOid, { row, inserted: true });
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
    const tables = this.tables;
    this.tables = new Map();
    this.pending = 0;
    for (const t of tables.values()) {
      const rows = t.rows;
      for (let i = 0; i < rows.length; i += BATCH_ROWS) {
        const n = Math.min(BATCH_ROWS, rows.length - i);
        const args: unknown[] = [];
        for (let k = i; k < i + n; k++) {
          const r = rows[k]!;
          // Order rows are queued as the objects themselves: their values now.
          for (const v of Array.isArray(r) ? r : this.orderValues(r)) args.push(v);
        }
        this.run(this.statement(t, n), args);
      }
    }
    for (const { row, inserted } of this.rows.values()) {
      if (!inserted) continue;
      const sql = this.text('orders#rewrite', () => `UPDATE orders SET ${this.orderColumns.map((c) => `${c} = ?`).join(', ')} WHERE client_oid = ?`);
      this.run(sql, [...this.orderValues(row), row.clientOid]);
    }
    this.rows.clear();
    const latest = [...this.latest.values()];
    this.latest.clear();
    for (const write of latest) write();
  }

  private orderValues(row: JournalOrder): unknown[] {
    return this.orderKeys.map((k) => this.toDb(row[k]));
  }

  /** The statement inserting `n` rows into `t`'s table. */
  private statement(t: Inserts, n: number): string {
    return this.text(`${t.table}#${n}`, () => {
      const one = `(${t.columns.map(() => '?').join(',')})`;
      return `INSERT INTO ${t.table} (${t.columns.join(',')}) VALUES ${Array<string>(n).fill(one).join(',')}`;
    });
  }

  private text(key: string, make: () => string): string {
    let text = this.texts.get(key);
    if (text === undefined) this.texts.set(key, (text = make()));
    return text;
  }
}
