// The orders a strategy placed that the journal holds as resting, as the strategy sees them: it sees its orders at
// once, not only once a poll of the venue lists them (the trading loop merges them into each update).
import { Decimal } from '../domain/decimal.js';
import type { PositionSide } from '../domain/market.js';
import type { Order, OrderStatus, TimeInForce } from '../domain/order.js';
import { RESTING_STATES, type Journal, type JournalOrder, type OrderState } from '../journal/journal.js';

const STATUS_OF_ROW: Partial<Record<OrderState, OrderStatus>> = {
  sending: 'pending',
  unknown: 'pending',
  open: 'open',
  canceling: 'canceling',
  untriggered: 'untriggered',
};

/** A resting journal row as a strategy sees an order (no venue id yet while it is being sent: ''). */
function orderOfRow(r: JournalOrder): Order {
  return {
    surface: r.surface,
    symbol: r.symbol,
    orderId: r.orderId ?? '',
    clientOid: r.clientOid,
    side: r.side,
    positionSide: r.positionSide as PositionSide | null,
    reduceOnly: r.reduceOnly,
    kind: r.kind,
    timeInForce: r.timeInForce as TimeInForce,
    price: r.price === null ? null : Decimal.from(r.price),
    size: Decimal.from(r.size),
    filledSize: Decimal.from(r.filledSize),
    avgFillPrice: r.avgPrice === null ? null : Decimal.from(r.avgPrice),
    fee: r.fee === null ? null : Decimal.from(r.fee),
    // A trigger waits for its price whatever the answer to its placing: a strategy keeps it apart from resting orders.
    status: r.isTrigger && r.state !== 'canceling' ? 'untriggered' : (STATUS_OF_ROW[r.state] ?? 'pending'),
    rawStatus: `journal:${r.state}`,
    rawType: r.kind,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
  };
}

/**
 * The orders each strategy placed that the journal holds as resting, worked out once per update: a strategy
 * sees its orders at once, not only once a poll of the venue lists them. A row is converted again only when
 * it changed.
 */
export class RestingRows {
  private byStrategy = new Map<string, JournalOrder[]>();
  private converted = new Map<string, { row: JournalOrder; order: Order }>();
  /** The journal's activeVersion() when its rows were last read (its rows have not changed while it holds). */
  private readVersion = -1;

  refresh(journal: Journal): void {
    const version = journal.activeVersion();
    if (version === this.readVersion) return;
    this.readVersion = version;
    const active = journal.activeOrders();
    // Nothing resting before or now (a strategy that places nothing): nothing to rebuild.
    if (active.length === 0 && this.byStrategy.size === 0 && this.converted.size === 0) return;
    this.byStrategy = new Map();
    const before = this.converted;
    this.converted = new Map(); // only rows still resting keep their conversion
    for (const r of active) {
      if (!RESTING_STATES.has(r.state)) continue;
      const held = before.get(r.clientOid);
      if (held) this.converted.set(r.clientOid, held);
      const mine = this.byStrategy.get(r.strategyId);
      if (mine) mine.push(r);
      else this.byStrategy.set(r.strategyId, [r]);
    }
  }

  /** The polled orders of an instance, and its resting rows on its symbols that the poll does not list. */
  merge(id: string, symbols: readonly string[], polled: Order[]): Order[] {
    const rows = this.byStrategy.get(id);
    if (!rows) return polled;
    let listed: Set<string> | undefined;
    let out: Order[] | undefined;
    for (const r of rows) {
      if (!symbols.includes(r.symbol)) continue;
      // The polled record wins: it carries the venue's fills.
      listed ??= new Set(polled.flatMap((x) => (x.clientOid ? [x.clientOid] : [])));
      if (listed.has(r.clientOid)) continue;
      (out ??= [...polled]).push(this.order(r));
    }
    return out ?? polled;
  }

  private order(r: JournalOrder): Order {
    const held = this.converted.get(r.clientOid);
    const same =
      held &&
      held.row.state === r.state &&
      held.row.updatedAtMs === r.updatedAtMs &&
      held.row.filledSize === r.filledSize &&
      held.row.orderId === r.orderId &&
      held.row.avgPrice === r.avgPrice &&
      held.row.fee === r.fee;
    if (same) return held.order;
    const order = orderOfRow(r);
    this.converted.set(r.clientOid, { row: r, order });
    return order;
  }
}
