// The in-memory journal's hot writes (intents, client ids, orders and their history, fills, equity), held in
// write-behind.ts until anything reads or writes the database otherwise. The ids they take (intent ids, client id
// numbers) are counted here, as the table would number them: the database is new and every row comes through here.
import { ACTIVE_STATES } from '../domain/order-lifecycle.js';
import type { Surface } from '../domain/market.js';
import type { JournalOrder } from './journal.js';
import { WriteBehind, type Statement, type TableQueue } from './write-behind.js';

const EVENT_COLUMNS = ['client_oid', 'event', 'state', 'at_ms'];
const INTENT_COLUMNS = ['id', 'strategy_id', 'kind', 'json', 'at_ms'];
const FILL_COLUMNS = ['fill_id', 'client_oid', 'order_id', 'price', 'size', 'fee', 'at_ms'];
const EQUITY_COLUMNS = ['surface', 'value', 'at_ms'];
/** Final rows kept for reading (the latest ones). */
const RECENT_FINALS = 4096;

/**
 * A copy of a row as the table reads it back: without a role, role null. Written out field by field, in the row's
 * own order: every copy has one shape, and building it is much cheaper than a spread or Object.assign.
 */
export function withRole(r: JournalOrder): JournalOrder {
  return {
    clientOid: r.clientOid,
    strategyId: r.strategyId,
    intentId: r.intentId,
    surface: r.surface,
    symbol: r.symbol,
    side: r.side,
    kind: r.kind,
    timeInForce: r.timeInForce,
    price: r.price,
    size: r.size,
    positionSide: r.positionSide,
    reduceOnly: r.reduceOnly,
    isTrigger: r.isTrigger,
    triggerPrice: r.triggerPrice,
    orderId: r.orderId,
    state: r.state,
    filledSize: r.filledSize,
    avgPrice: r.avgPrice,
    fee: r.fee,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
    seenAtMs: r.seenAtMs,
    absentChecks: r.absentChecks,
    absentSinceMs: r.absentSinceMs,
    lastError: r.lastError,
    role: r.role ?? null,
  };
}

/** Whether a patch changes any column (the client id is the row's key, never changed). */
function changesColumns(patch: Partial<JournalOrder>): boolean {
  for (const k in patch) if (k !== 'clientOid') return true;
  return false;
}

/** What the journal lends: its database (statements prepared on it) and its active rows. */
export interface HeldWritesHost {
  /**
   * Prepares a statement on the database as it is (running it lets no held write go first). Its runs may only hand
   * the write on (a database on a thread): flushed() is called once a flush has run them all.
   */
  prepare(sql: string): Statement;
  flushed?: () => void;
  /** Writes held at most (write-behind.ts's default otherwise). */
  maxPending?: number;
  /** The journal's copies of its active orders, by client id (the same objects are held for writing). */
  active: Map<string, JournalOrder>;
  orderKeys: ReadonlyArray<keyof JournalOrder>;
  orderColumns: readonly string[];
  toDb(v: unknown): unknown;
}

/** A strategy's client id numbers: the next one, and the write of its sequence row (once per flush, the latest number). */
interface Sequence {
  next: number;
  key: string;
  write: () => void;
}

export class HeldWrites {
  readonly queue: WriteBehind;
  private lastIntentId = 0;
  private readonly sequences = new Map<string, Sequence>();
  /** Every order's client id and every fill id written: what the tables' keys would refuse. */
  private readonly clientOids = new Set<string>();
  private readonly fillIds = new Set<string>();
  /**
   * The latest final rows, as the table holds them (every change to them comes through here): a strategy often asks
   * about an order just filled or canceled.
   */
  private readonly finals = new Map<string, JournalOrder>();
  private readonly intents: TableQueue;
  private readonly events: TableQueue;
  private readonly fills: TableQueue;
  private readonly equity: TableQueue;

  constructor(private readonly host: HeldWritesHost) {
    this.queue = new WriteBehind((sql) => host.prepare(sql), host.orderKeys, host.orderColumns, host.toDb, host);
    this.intents = this.queue.table('intents', INTENT_COLUMNS);
    this.events = this.queue.table('order_events', EVENT_COLUMNS);
    this.fills = this.queue.table('fills', FILL_COLUMNS);
    this.equity = this.queue.table('equity', EQUITY_COLUMNS);
  }

  recordIntent(strategyId: string, kind: string, json: string, atMs: number): number {
    const id = ++this.lastIntentId;
    this.intents.values.push(id, strategyId, kind, json, atMs);
    this.queue.added(this.intents);
    return id;
  }

  /** The first of `n` numbers reserved for a strategy's client ids. */
  reserveClientOids(strategyId: string, n: number): number {
    let held = this.sequences.get(strategyId);
    if (!held) {
      // The table has no row for it yet: numbers start at 1.
      const upsert = this.host.prepare('INSERT INTO sequences (strategy_id, next) VALUES (?, ?) ON CONFLICT(strategy_id) DO UPDATE SET next = excluded.next');
      const seq: Sequence = { next: 1, key: `sequence ${strategyId}`, write: () => upsert.run(strategyId, seq.next) };
      this.sequences.set(strategyId, (held = seq));
    }
    const start = held.next;
    held.next += n;
    this.queue.once(held.key, held.write);
    return start;
  }

  /** New rows queued; the copies of the active ones are the same objects. */
  insertOrders(rows: JournalOrder[]): void {
    // As the table's key refuses it, before anything of the batch is written.
    if (rows.length === 1) {
      if (this.clientOids.has(rows[0]!.clientOid)) throw new RangeError(`client id ${rows[0]!.clientOid} is in the journal already`);
    } else {
      const batch = new Set<string>();
      for (const r of rows) {
        if (this.clientOids.has(r.clientOid) || batch.has(r.clientOid)) throw new RangeError(`client id ${r.clientOid} is in the journal already`);
        batch.add(r.clientOid);
      }
    }
    for (const r of rows) {
      const row = withRole(r);
      this.clientOids.add(r.clientOid);
      this.queue.insertOrder(row);
      this.event(r.clientOid, 'written', r.state, r.createdAtMs);
      if (ACTIVE_STATES.has(r.state)) this.host.active.set(r.clientOid, row);
      else this.final(row);
    }
  }

  /** A final row, as the table holds it: the one waiting to be written, or one of the latest final ones. */
  order(clientOid: string): JournalOrder | undefined {
    return this.queue.order(clientOid) ?? this.finals.get(clientOid);
  }

  private final(row: JournalOrder): void {
    this.finals.set(row.clientOid, row);
    if (this.finals.size > RECENT_FINALS) this.finals.delete(this.finals.keys().next().value!);
  }

  private event(clientOid: string, event: string, state: string, atMs: number): void {
    this.events.values.push(clientOid, event, state, atMs);
    this.queue.added(this.events);
  }

  /**
   * A change to a row held here (an active one, one waiting to be written, or one of the latest final ones) is made
   * to the row, which is written with its latest values; false when the change is for the table itself (a final row
   * no longer held, one made active again, or a patch of no column, which leaves updated_at as it is).
   */
  updateOrder(clientOid: string, patch: Partial<JournalOrder>, event: string, atMs: number): boolean {
    if (!changesColumns(patch)) return false;
    const active = this.host.active.get(clientOid);
    const held = active ?? this.order(clientOid);
    if (!held) return false;
    if (!active && patch.state !== undefined && ACTIVE_STATES.has(patch.state)) {
      // Active again: the journal's copy is read back from the table.
      this.finals.delete(clientOid);
      return false;
    }
    const state = patch.state ?? held.state;
    Object.assign(held, patch);
    held.clientOid = clientOid;
    held.updatedAtMs = atMs;
    if (active && !ACTIVE_STATES.has(held.state)) {
      this.host.active.delete(clientOid);
      this.final(held);
    }
    this.queue.changedOrder(held);
    this.event(clientOid, event, state, atMs);
    return true;
  }

  /** False when the fill was recorded already. */
  recordFill(f: { clientOid: string; orderId: string; fillId: string; price: string; size: string; fee: string; atMs: number }): boolean {
    if (this.fillIds.has(f.fillId)) return false;
    this.fillIds.add(f.fillId);
    this.fills.values.push(f.fillId, f.clientOid, f.orderId, f.price, f.size, f.fee, f.atMs);
    this.queue.added(this.fills);
    return true;
  }

  recordEquity(surface: Surface, value: string, atMs: number): void {
    this.equity.values.push(surface, value, atMs);
    this.queue.added(this.equity);
  }
}
