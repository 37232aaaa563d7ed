// The orders table's rows as the journal's JournalOrder: columns, the conversion both ways. Fills (with their
// orders' strategy, symbol and side) and commands as the journal's records.
import type { Surface } from '../domain/market.js';
import type { CommandRecord, JournalFill, JournalOrder } from './journal.js';

export interface Row {
  client_oid: string;
  strategy_id: string;
  intent_id: number;
  surface: string;
  symbol: string;
  side: string;
  kind: string;
  time_in_force: string;
  price: string | null;
  size: string;
  position_side: string | null;
  reduce_only: number;
  is_trigger: number;
  trigger_price: string | null;
  order_id: string | null;
  state: string;
  filled_size: string;
  avg_price: string | null;
  fee: string | null;
  created_at: number;
  updated_at: number;
  seen_at_ms: number | null;
  absent_checks: number;
  absent_since_ms: number | null;
  last_error: string | null;
  role: string | null;
}

export function fromRow(r: Row): JournalOrder {
  return {
    clientOid: r.client_oid,
    strategyId: r.strategy_id,
    intentId: r.intent_id,
    surface: r.surface as Surface,
    symbol: r.symbol,
    side: r.side as JournalOrder['side'],
    kind: r.kind as JournalOrder['kind'],
    timeInForce: r.time_in_force,
    price: r.price,
    size: r.size,
    positionSide: r.position_side,
    reduceOnly: r.reduce_only === 1,
    isTrigger: r.is_trigger === 1,
    triggerPrice: r.trigger_price,
    orderId: r.order_id,
    state: r.state as JournalOrder['state'],
    filledSize: r.filled_size,
    avgPrice: r.avg_price,
    fee: r.fee,
    createdAtMs: r.created_at,
    updatedAtMs: r.updated_at,
    seenAtMs: r.seen_at_ms,
    absentChecks: r.absent_checks,
    absentSinceMs: r.absent_since_ms,
    lastError: r.last_error,
    role: (r.role as JournalOrder['role']) ?? null,
  };
}

/** Row field -> column. `created_at` and `updated_at` hold milliseconds too (named before the unit suffix). */
export const COLUMNS: Record<keyof JournalOrder, string> = {
  clientOid: 'client_oid',
  strategyId: 'strategy_id',
  intentId: 'intent_id',
  surface: 'surface',
  symbol: 'symbol',
  side: 'side',
  kind: 'kind',
  timeInForce: 'time_in_force',
  price: 'price',
  size: 'size',
  positionSide: 'position_side',
  reduceOnly: 'reduce_only',
  isTrigger: 'is_trigger',
  triggerPrice: 'trigger_price',
  orderId: 'order_id',
  state: 'state',
  filledSize: 'filled_size',
  avgPrice: 'avg_price',
  fee: 'fee',
  createdAtMs: 'created_at',
  updatedAtMs: 'updated_at',
  seenAtMs: 'seen_at_ms',
  absentChecks: 'absent_checks',
  absentSinceMs: 'absent_since_ms',
  lastError: 'last_error',
  role: 'role',
};

/** A field's value as the table stores it (booleans as 0 and 1, absent as null). */
export function toDb(v: unknown): unknown {
  return typeof v === 'boolean' ? (v ? 1 : 0) : v === undefined ? null : v;
}

export interface FillRow {
  fill_id: string;
  client_oid: string;
  order_id: string;
  price: string;
  size: string;
  fee: string;
  at_ms: number;
  strategy_id: string | null;
  symbol: string | null;
  side: string | null;
}

export function fromFillRow(r: FillRow): JournalFill {
  return {
    clientOid: r.client_oid,
    orderId: r.order_id,
    fillId: r.fill_id,
    price: r.price,
    size: r.size,
    fee: r.fee,
    atMs: r.at_ms,
    strategyId: r.strategy_id,
    symbol: r.symbol,
    side: r.side === 'buy' || r.side === 'sell' ? r.side : null,
  };
}

export interface CommandRow {
  id: number;
  via: string;
  who: string;
  command: string;
  args: string;
  reason: string | null;
  at_ms: number;
  ok: number | null;
  detail: string | null;
  done_at_ms: number | null;
}

export function fromCommandRow(r: CommandRow): CommandRecord {
  return {
    id: r.id,
    via: r.via,
    who: r.who,
    command: r.command,
    args: r.args,
    reason: r.reason,
    atMs: r.at_ms,
    outcome: r.ok === null ? null : { ok: r.ok === 1, detail: r.detail ?? '', atMs: r.done_at_ms ?? r.at_ms },
  };
}
