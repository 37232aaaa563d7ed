// The journal's longer read queries (fills, recent orders, the equity series, commands), in the SQL SQLite and
// PostgreSQL both speak, for sql-journal.ts: each one takes the journal's prepared statements.
import type { Surface } from '../domain/market.js';
import type { CommandRecord, EquityRecord, JournalFill, JournalOrder } from './journal.js';
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
  const rows = query.strategyId !== undefined
    ? sql('SELECT * FROM orders WHERE strategy_id = ? ORDER BY created_at DESC, client_oid DESC LIMIT ?').all(query.strategyId, limit)
    : sql('SELECT * FROM orders ORDER BY created_at DESC, client_oid DESC LIMIT ?').all(limit);
  return (rows as Row[]).map(fromRow);
}

export function equitySeriesQuery(sql: Sql, query: { sinceMs?: number; limit?: number } = {}): EquityRecord[] {
  const limit = query.limit !== undefined ? Math.max(0, Math.floor(query.limit)) : NO_LIMIT;
  const rows = sql('SELECT surface, value, at_ms FROM equity WHERE at_ms >= ? ORDER BY at_ms DESC, id DESC LIMIT ?').all(query.sinceMs ?? -Number.MAX_SAFE_INTEGER, limit) as Array<{ surface: string; value: string; at_ms: number }>;
  return rows.reverse().map((r) => ({ surface: r.surface as Surface, value: r.value, atMs: r.at_ms }));
}

export function commandsQuery(sql: Sql, query: { limit?: number } = {}): CommandRecord[] {
  const limit = query.limit !== undefined ? Math.max(0, Math.floor(query.limit)) : NO_LIMIT;
  const rows = sql('SELECT * FROM commands ORDER BY id DESC LIMIT ?').all(limit) as CommandRow[];
  return rows.reverse().map(fromCommandRow);
}
