// The journal's read queries of the tables it does not hold in memory (fills, recent orders, the equity series,
// commands, funding, risk decisions, the venue binding, counts), in the SQL SQLite and PostgreSQL both speak, for
// sql-journal.ts: each one takes the journal's prepared statements.
import type { Surface } from '../domain/market.js';
import type { CommandRecord, EquityRecord, FundingRecord, JournalFill, JournalOrder, VenueBinding } from './journal.js';
import type { SqlStatement } from './sqlite-thread.js';
import { fromCommandRow, fromFillRow, fromRow, type CommandRow, type FillRow, type Row } from './sqlite-rows.js';

/** A prepared statement of the journal, by its text. */
type Sql = (text: string) => SqlStatement;

/** No limit, as a parameter both SQLs take (SQLite's -1 is refused by PostgreSQL). */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

export function fillsQuery(sql: Sql, query: { strategyId?: string; limit?: number } = {}): JournalFill[] {
  const where = query.strategyId !== undefined ? 'WHERE o.strategy_id = ?' : '';
  const args: unknown[] = query.strategyId !== undefined ? [query.strategyId] : [];
  // The latest `limit`, read newest first and turned back to oldest first.
  const limit = query.limit !== undefined ? `LIMIT ${Math.max(0, Math.floor(query.limit))}` : '';
  const rows = sql(
    `SELECT f.fill_id, f.client_oid, f.order_id, f.price, f.size, f.fee, f.at_ms, o.strategy_id, o.symbol, o.side
     FROM fills f LEFT JOIN orders o ON o.client_oid = f.client_oid ${where} ORDER BY f.at_ms DESC, f.rowid DESC ${limit}`,
  ).all(...args) as FillRow[];
  return rows.reverse().map(fromFillRow);
}

export function recentOrdersQuery(sql: Sql, query: { strategyId?: string; limit: number }): JournalOrder[] {
  const limit = Math.max(0, Math.floor(query.limit));
  const rows =
    query.strategyId !== undefined
      ? sql('SELECT * FROM orders WHERE strategy_id = ? ORDER BY created_at DESC, client_oid DESC LIMIT ?').all(query.strategyId, limit)
      : sql('SELECT * FROM orders ORDER BY created_at DESC, client_oid DESC LIMIT ?').all(limit);
  return (rows as Row[]).map(fromRow);
}

export function equitySeriesQuery(sql: Sql, query: { sinceMs?: number; limit?: number } = {}): EquityRecord[] {
  const limit = query.limit !== undefined ? Math.max(0, Math.floor(query.limit)) : NO_LIMIT;
  const rows = sql('SELECT surface, value, at_ms FROM equity WHERE at_ms >= ? ORDER BY at_ms DESC, id DESC LIMIT ?').all(
    query.sinceMs ?? -Number.MAX_SAFE_INTEGER,
    limit,
  ) as Array<{ surface: string; value: string; at_ms: number }>;
  return rows.reverse().map((r) => ({ surface: r.surface as Surface, value: r.value, atMs: r.at_ms }));
}

export function commandsQuery(sql: Sql, query: { limit?: number } = {}): CommandRecord[] {
  const limit = query.limit !== undefined ? Math.max(0, Math.floor(query.limit)) : NO_LIMIT;
  const rows = sql('SELECT * FROM commands ORDER BY id DESC LIMIT ?').all(limit) as CommandRow[];
  return rows.reverse().map(fromCommandRow);
}

export function fundingQuery(sql: Sql): FundingRecord[] {
  const rows = sql('SELECT ref, symbol, amount, at_ms FROM funding ORDER BY at_ms, ref').all() as Array<{
    ref: string;
    symbol: string;
    amount: string;
    at_ms: number;
  }>;
  return rows.map((r) => ({ ref: r.ref, symbol: r.symbol, amount: r.amount, atMs: r.at_ms }));
}

export function riskDecisionsQuery(sql: Sql): Array<{ strategyId: string; reason: string; detail: string; atMs: number }> {
  const rows = sql('SELECT strategy_id, reason, detail, at_ms FROM risk_decisions ORDER BY id').all() as Array<{
    strategy_id: string;
    reason: string;
    detail: string;
    at_ms: number;
  }>;
  return rows.map((r) => ({ strategyId: r.strategy_id, reason: r.reason, detail: r.detail, atMs: r.at_ms }));
}

export function venueBindingQuery(sql: Sql): VenueBinding | undefined {
  const rows = sql("SELECT key, value FROM meta WHERE key IN ('venue', 'account')").all() as Array<{ key: string; value: string }>;
  const m = new Map(rows.map((r) => [r.key, r.value]));
  const venue = m.get('venue');
  const account = m.get('account');
  return venue !== undefined && account !== undefined ? { venue, account } : undefined;
}

/** Orders by state (for summaries). */
export function countByStateQuery(sql: Sql): Record<string, number> {
  const rows = sql('SELECT state, COUNT(*) AS n FROM orders GROUP BY state').all() as Array<{ state: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
