// The journal's logic over SQL, shared by SQLite (sqlite-journal.ts) and PostgreSQL (postgres-journal.ts): one set of
// statements, written in the SQL both speak (`?` placeholders, ON CONFLICT, RETURNING), the write-through copy of the
// active orders; how it writes (transactions, the fence, unflushed commits) is sql-writes.ts. In memory (SQLite's
// ':memory:', a backtest's) the hot writes are held (held-writes.ts) and one transaction stays open.
import type { Surface } from '../domain/market.js';
import { ACTIVE_STATES } from '../domain/order-lifecycle.js';
import { HeldWrites, withRole } from './held-writes.js';
import { SqlWrites, type SqlJournalStore } from './sql-writes.js';
import { COLUMNS, fromRow, toDb, type Row } from './sqlite-rows.js';
import type { CommandRecord, EquityRecord, FundingRecord, Journal, JournalFill, JournalOrder, Latch, VenueBinding } from './journal.js';
import {
  commandsQuery,
  countByStateQuery,
  equitySeriesQuery,
  fillsQuery,
  fundingQuery,
  recentOrdersQuery,
  riskDecisionsQuery,
  venueBindingQuery,
} from './journal-queries.js';

/** Writes an in-memory journal on a thread holds at most. */
const THREAD_MAX_PENDING = 5_000;

export interface SqlJournalOptions {
  /** Prefix of every client id this journal hands out (distinguishes instances sharing one key). */
  clientOidPrefix: string;
}

/** A client id prefix the venue takes (checked before a store is opened for it). */
export function checkClientOidPrefix(prefix: string): void {
  if (!/^[A-Za-z0-9]{1,8}$/.test(prefix)) throw new RangeError('clientOidPrefix must be 1-8 characters of [A-Za-z0-9]');
}

export abstract class SqlJournal extends SqlWrites implements Journal {
  // Listing the active states (not excluding the final ones) lets the state index answer: the table only grows.
  private readonly active = [...ACTIVE_STATES].map((s) => `'${s}'`).join(',');

  constructor(store: SqlJournalStore, opts: SqlJournalOptions) {
    checkClientOidPrefix(opts.clientOidPrefix);
    super(store);
    this.clientOidPrefix = opts.clientOidPrefix;
    // In memory there is no crash to survive: one transaction stays open for the journal's life (committed when
    // saved or closed), and writes skip a commit each. Otherwise every write is its own durable transaction.
    if (!this.inMemory) {
      this.readActive();
    } else {
      // A new database: nothing active, no intent yet, and every row comes through this object, so its own records
      // of ids are complete (nothing read back: on a thread, nothing waits for the thread to start).
      this.version++;
      this.db.exec('BEGIN');
      const thread = this.thread;
      this.held = new HeldWrites({
        prepare: thread ? (sql) => ({ run: (...params: unknown[]) => thread.later(sql, params) }) : (sql) => this.prepared(sql),
        // On a thread, held writes go in smaller batches: the thread writes them while the run goes on.
        ...(thread ? { flushed: () => thread.send(), maxPending: THREAD_MAX_PENDING } : {}),
        active: this.activeSet,
        orderKeys: Object.keys(COLUMNS) as Array<keyof JournalOrder>,
        orderColumns: Object.values(COLUMNS),
        toDb,
      });
    }
  }

  private readonly clientOidPrefix: string;

  /**
   * What moves whenever another connection commits (SQLite's data_version); undefined when the store cannot tell
   * cheaply: its active rows are then read and compared at each refresh.
   */
  protected abstract commitMark(): number | undefined;

  private seenMark: number | undefined;

  private readActiveRows(): Map<string, JournalOrder> {
    const rows = new Map<string, JournalOrder>();
    for (const r of this.sql(`SELECT * FROM orders WHERE state IN (${this.active})`).all() as Row[]) rows.set(r.client_oid, fromRow(r));
    return rows;
  }

  private readActive(): void {
    this.seenMark = this.commitMark();
    this.version++;
    this.activeSet.clear();
    for (const [oid, r] of this.readActiveRows()) this.activeSet.set(oid, r);
  }

  refresh(): void {
    if (this.inMemory) return;
    const mark = this.commitMark();
    if (mark !== undefined) {
      if (mark !== this.seenMark) this.readActive();
      return;
    }
    // Taken in only when they differ: activeVersion() moves with what the rows hold, not with each look.
    const rows = this.readActiveRows();
    if (JSON.stringify([...rows]) === JSON.stringify([...this.activeSet])) return;
    this.version++;
    this.activeSet.clear();
    for (const [oid, r] of rows) this.activeSet.set(oid, r);
  }

  private readonly lastEquity = new Map<Surface, string>();
  /**
   * The orders not final, as written (a write-through copy of those rows): the executor and the tracker read
   * them on every order and every reconciliation; the table keeps every order ever sent.
   */
  private readonly activeSet = new Map<string, JournalOrder>();

  /** Housekeeping of the store. */
  abstract maintain(): void;

  recordIntent(strategyId: string, kind: string, json: string, atMs: number): number {
    if (this.held) return this.held.recordIntent(strategyId, kind, json, atMs);
    return this.writingUnflushed(
      () =>
        (this.sql('INSERT INTO intents (strategy_id, kind, json, at_ms) VALUES (?, ?, ?, ?) RETURNING id').get(strategyId, kind, json, atMs) as { id: number })
          .id,
    );
  }

  /** Each strategy's client id prefix: the journal's, and the strategy's tag. */
  private readonly oidPrefixes = new Map<string, string>();

  nextClientOids(strategyId: string, n: number): string[] {
    let prefix = this.oidPrefixes.get(strategyId);
    if (prefix === undefined) {
      const tag = strategyId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12) || 'x';
      this.oidPrefixes.set(strategyId, (prefix = `${this.clientOidPrefix}_${tag}_`));
    }
    // One statement, unflushed (in memory: counted, written later).
    const start = this.held
      ? this.held.reserveClientOids(strategyId, n)
      : this.writingUnflushed(
          () =>
            (
              this.sql(
                'INSERT INTO sequences (strategy_id, next) VALUES (?, 1 + ?) ON CONFLICT(strategy_id) DO UPDATE SET next = sequences.next + excluded.next - 1 RETURNING next',
              ).get(strategyId, n) as { next: number }
            ).next,
        ) - n;
    if (n === 1) return [prefix + start.toString(36)];
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(prefix + (start + i).toString(36));
    return out;
  }

  private readonly insertTx = (rows: JournalOrder[]) => {
    const cols = Object.values(COLUMNS);
    const keys = Object.keys(COLUMNS) as Array<keyof JournalOrder>;
    const insert = `INSERT INTO orders (${cols.join(',')}) VALUES (${cols.map(() => '?').join(',')})`;
    for (const r of rows) {
      this.write(insert, ...keys.map((k) => toDb(r[k])));
      this.write('INSERT INTO order_events (client_oid, event, state, at_ms) VALUES (?, ?, ?, ?)', r.clientOid, 'written', r.state, r.createdAtMs);
    }
  };

  insertOrders(rows: JournalOrder[]): void {
    this.version++;
    if (this.held) return this.held.insertOrders(rows);
    this.writingBeforeSend(() => this.insertTx(rows));
    // Held as the table reads back: a row written without a role has none (null).
    for (const r of rows) if (ACTIVE_STATES.has(r.state)) this.activeSet.set(r.clientOid, withRole(r));
  }

  private readonly updateTx = (clientOid: string, patch: Partial<JournalOrder>, event: string, atMs: number, known: string | undefined) => {
    const entries = Object.entries(patch).filter(([k]) => k !== 'clientOid') as Array<[keyof JournalOrder, unknown]>;
    if (entries.length > 0) {
      const sets = entries.map(([k]) => `${COLUMNS[k]} = ?`).join(', ');
      this.write(`UPDATE orders SET ${sets}, updated_at = ? WHERE client_oid = ?`, ...entries.map(([, v]) => toDb(v)), atMs, clientOid);
    }
    // Handed over without waiting (a thread, a connection): the state is read by the insert itself.
    if (known === undefined && this.db.later) {
      this.write(
        "INSERT INTO order_events (client_oid, event, state, at_ms) VALUES (?, ?, COALESCE((SELECT state FROM orders WHERE client_oid = ?), '?'), ?)",
        clientOid,
        event,
        clientOid,
        atMs,
      );
      return;
    }
    const state = known ?? (this.sql('SELECT state FROM orders WHERE client_oid = ?').get(clientOid) as { state: string } | undefined)?.state ?? '?';
    this.write('INSERT INTO order_events (client_oid, event, state, at_ms) VALUES (?, ?, ?, ?)', clientOid, event, state, atMs);
  };

  updateOrder(clientOid: string, patch: Partial<JournalOrder>, event: string, atMs: number): void {
    this.version++;
    if (this.held?.updateOrder(clientOid, patch, event, atMs)) return;
    const held = this.activeSet.get(clientOid);
    this.writing(() => this.updateTx(clientOid, patch, event, atMs, patch.state ?? held?.state), true);
    if (held) {
      Object.assign(held, patch, { clientOid, updatedAtMs: atMs });
      if (!ACTIVE_STATES.has(held.state)) this.activeSet.delete(clientOid);
    } else if (patch.state && ACTIVE_STATES.has(patch.state)) {
      const r = this.sql('SELECT * FROM orders WHERE client_oid = ?').get(clientOid) as Row | undefined;
      if (r) this.activeSet.set(clientOid, fromRow(r));
    }
  }

  order(clientOid: string): JournalOrder | undefined {
    const held = this.activeSet.get(clientOid) ?? this.held?.order(clientOid);
    if (held) return withRole(held);
    const r = this.sql('SELECT * FROM orders WHERE client_oid = ?').get(clientOid) as Row | undefined;
    return r ? fromRow(r) : undefined;
  }

  orderByOrderId(orderId: string): JournalOrder | undefined {
    const r = this.sql(`SELECT * FROM orders WHERE order_id = ? ORDER BY state IN (${this.active}) DESC, created_at DESC LIMIT 1`).get(orderId) as
      Row | undefined;
    return r ? fromRow(r) : undefined;
  }

  /** Moves on every write of an order and every reading of the table's active rows. */
  private version = 0;

  activeVersion(): number {
    return this.version;
  }

  activeOrders(): JournalOrder[] {
    const out: JournalOrder[] = [];
    for (const r of this.activeSet.values()) out.push(withRole(r));
    return out.sort((a, b) => a.createdAtMs - b.createdAtMs || (a.clientOid < b.clientOid ? -1 : a.clientOid > b.clientOid ? 1 : 0));
  }

  allOrders(): JournalOrder[] {
    return (this.sql('SELECT * FROM orders ORDER BY created_at, client_oid').all() as Row[]).map(fromRow);
  }

  history(clientOid: string): Array<{ event: string; state: string; atMs: number }> {
    return (
      this.sql('SELECT event, state, at_ms FROM order_events WHERE client_oid = ? ORDER BY id').all(clientOid) as Array<{
        event: string;
        state: string;
        at_ms: number;
      }>
    ).map((r) => ({ event: r.event, state: r.state, atMs: r.at_ms }));
  }

  recordFill(f: { clientOid: string; orderId: string; fillId: string; price: string; size: string; fee: string; atMs: number }): boolean {
    if (this.held) return this.held.recordFill(f);
    const insert = 'INSERT INTO fills (fill_id, client_oid, order_id, price, size, fee, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING';
    return this.writing(() => this.sql(insert).run(f.fillId, f.clientOid, f.orderId, f.price, f.size, f.fee, f.atMs).changes === 1);
  }

  fills(query: { strategyId?: string; limit?: number } = {}): JournalFill[] {
    return fillsQuery((text) => this.sql(text), query);
  }

  recentOrders(query: { strategyId?: string; limit: number }): JournalOrder[] {
    return recentOrdersQuery((text) => this.sql(text), query);
  }

  recordFunding(f: FundingRecord): boolean {
    return this.writing(
      () =>
        this.sql('INSERT INTO funding (ref, symbol, amount, at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(f.ref, f.symbol, f.amount, f.atMs)
          .changes === 1,
    );
  }

  funding(): FundingRecord[] {
    return fundingQuery((text) => this.sql(text));
  }

  recordRiskDecision(strategyId: string, intentKind: string, reason: string, detail: string, atMs: number): void {
    this.writing(() =>
      this.write(
        'INSERT INTO risk_decisions (strategy_id, intent_kind, reason, detail, at_ms) VALUES (?, ?, ?, ?, ?)',
        strategyId,
        intentKind,
        reason,
        detail,
        atMs,
      ),
    );
  }

  recordRiskDecisions(rows: Array<{ strategyId: string; intentKind: string; reason: string; detail: string; atMs: number }>): void {
    if (rows.length === 0) return;
    this.writing(() => {
      for (const r of rows) this.recordRiskDecision(r.strategyId, r.intentKind, r.reason, r.detail, r.atMs);
    }, true);
  }

  venueBinding(): VenueBinding | undefined {
    return venueBindingQuery((text) => this.sql(text));
  }

  bindVenue(binding: VenueBinding, atMs: number): void {
    const put = 'INSERT INTO meta (key, value, at_ms) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, at_ms = excluded.at_ms';
    this.writing(() => {
      this.write(put, 'venue', binding.venue, atMs);
      this.write(put, 'account', binding.account, atMs);
    }, true);
  }

  riskDecisions(): Array<{ strategyId: string; reason: string; detail: string; atMs: number }> {
    return riskDecisionsQuery((text) => this.sql(text));
  }

  /**
   * Latches are read on every gate decision, strategy states when a strategy starts. In memory nobody else writes
   * and the database starts empty: they are kept in maps, written through. On disk an operator's reset comes from
   * another process, so each read asks the table.
   */
  private readonly latches = new Map<string, Latch>();
  private readonly states = new Map<string, string>();

  latch(name: string): Latch | undefined {
    if (this.inMemory) {
      const held = this.latches.get(name);
      return held ? { ...held } : undefined;
    }
    const r = this.sql('SELECT name, reason, at_ms FROM latches WHERE name = ?').get(name) as { name: string; reason: string; at_ms: number } | undefined;
    return r ? { name: r.name, reason: r.reason, atMs: r.at_ms } : undefined;
  }

  setLatch(name: string, reason: string, atMs: number): void {
    this.writing(() => this.write('INSERT INTO latches (name, reason, at_ms) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING', name, reason, atMs));
    if (this.inMemory && !this.latches.has(name)) this.latches.set(name, { name, reason, atMs });
  }

  clearLatch(name: string): void {
    this.writing(() => this.write('DELETE FROM latches WHERE name = ?', name));
    this.latches.delete(name);
  }

  strategyState(strategyId: string): string | undefined {
    if (this.inMemory) return this.states.get(strategyId);
    return (this.sql('SELECT json FROM strategy_state WHERE strategy_id = ?').get(strategyId) as { json: string } | undefined)?.json;
  }

  saveStrategyState(strategyId: string, json: string, atMs: number): void {
    this.writing(() =>
      this.write(
        'INSERT INTO strategy_state (strategy_id, json, at_ms) VALUES (?, ?, ?) ON CONFLICT(strategy_id) DO UPDATE SET json = excluded.json, at_ms = excluded.at_ms',
        strategyId,
        json,
        atMs,
      ),
    );
    if (this.inMemory) this.states.set(strategyId, json);
  }

  /** Orders by state (for summaries). */
  countByState(): Record<string, number> {
    return countByStateQuery((text) => this.sql(text));
  }

  recordEquity(surface: Surface, value: string, atMs: number): void {
    // A series of changes: a value equal to the surface's previous one adds nothing.
    if (this.lastEquity.get(surface) === value) return;
    this.lastEquity.set(surface, value);
    if (this.held) return this.held.recordEquity(surface, value, atMs);
    this.writing(() => this.write('INSERT INTO equity (surface, value, at_ms) VALUES (?, ?, ?)', surface, value, atMs));
  }

  equitySeries(query: { sinceMs?: number; limit?: number } = {}): EquityRecord[] {
    return equitySeriesQuery((text) => this.sql(text), query);
  }

  recordCommand(c: Omit<CommandRecord, 'id' | 'outcome'>): number {
    const insert = 'INSERT INTO commands (via, who, command, args, reason, at_ms) VALUES (?, ?, ?, ?, ?, ?) RETURNING id';
    return this.writing(() => (this.sql(insert).get(c.via, c.who, c.command, c.args, c.reason, c.atMs) as { id: number }).id);
  }

  finishCommand(id: number, outcome: { ok: boolean; detail: string; atMs: number }): void {
    this.writing(() => this.write('UPDATE commands SET ok = ?, detail = ?, done_at_ms = ? WHERE id = ?', outcome.ok ? 1 : 0, outcome.detail, outcome.atMs, id));
  }

  commands(query: { limit?: number } = {}): CommandRecord[] {
    return commandsQuery((text) => this.sql(text), query);
  }

  close(): void {
    try {
      this.held?.queue.flush();
      if (this.inMemory && this.db.inTransaction) this.db.exec('COMMIT');
    } finally {
      // A write that failed is thrown; the database (and its thread) closed all the same.
      this.db.close();
    }
  }
}
