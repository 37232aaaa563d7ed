// `sextant orders`: what the journal holds, and an operator's hand to settle an order the venue cannot answer
// for. Every settlement is a journal event with its reason; a running daemon takes it in at its next reconciliation.
import { Decimal } from '../domain/decimal.js';
import { transition } from '../domain/order-lifecycle.js';
import type { Journal, JournalOrder } from '../journal/journal.js';

export type SettleAs = 'canceled' | 'filled' | 'vanished';
export const SETTLE_AS: readonly SettleAs[] = ['canceled', 'filled', 'vanished'];

const COLUMNS = ['client id', 'strategy', 'symbol', 'side', 'price', 'size', 'filled', 'state', 'order id', 'age s', 'not found'];

/** The journal's orders that are not final (or every order with `all`), as aligned text lines. */
export function listOrders(journal: Journal, nowMs: number, all: boolean): string[] {
  const rows = all ? journal.allOrders() : journal.activeOrders();
  if (rows.length === 0) return [all ? 'the journal holds no orders' : 'no orders in flight: every order in the journal is final'];
  const cells = rows.map((r) => [
    r.clientOid,
    r.strategyId,
    r.symbol,
    r.isTrigger ? `${r.side} (trigger ${r.triggerPrice})` : r.side,
    r.price ?? 'market',
    r.size,
    r.filledSize,
    r.state,
    r.orderId ?? '-',
    String(Math.round((nowMs - r.createdAtMs) / 1000)),
    String(r.absentChecks),
  ]);
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (xs: string[]) =>
    xs
      .map((x, i) => x.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(COLUMNS), ...cells.map(line)];
}

/** Finds an order by client id or venue order id. */
export function findOrder(journal: Journal, id: string): JournalOrder | undefined {
  return journal.order(id) ?? journal.orderByOrderId(id);
}

/**
 * Settles an order that is not final by hand, with a reason kept in its history. Refuses a final order (the
 * venue answered for it) and a reason left empty.
 */
export function settleOrder(journal: Journal, id: string, as: SettleAs, reason: string, nowMs: number): JournalOrder {
  const row = findOrder(journal, id);
  if (!row) throw new Error(`no order ${id} in the journal (give its client id or venue order id)`);
  const next = transition(row.state, { type: 'operator-settled', as });
  // The lifecycle refuses only a final order: the venue answered for it.
  if (!next.ok) throw new Error(`order ${row.clientOid} is already final (${row.state}): nothing to settle`);
  if (reason.trim() === '') throw new Error("--reason is required: say why, it is kept in the order's history");
  const state = next.to;
  const patch: Partial<JournalOrder> = as === 'filled' ? { state, filledSize: Decimal.from(row.size).toString() } : { state };
  journal.updateOrder(row.clientOid, patch, `settled by an operator as ${as}: ${reason.trim()}`, nowMs);
  return journal.order(row.clientOid)!;
}
