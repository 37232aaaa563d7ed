// The order tracker: brings the journal's open, unknown and lost orders in line with the venue, by query.
// Unknown orders are resolved through open orders (F5) and order lookups (S3) within a grace window that
// tolerates read-after-write lag; an order is marked lost only after repeated absence, and is still checked.
// Fills: futures from the order fields, spot from S2. Orders the bot did not create are reported, not touched.
import type { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Surface } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { Journal, JournalOrder, OrderState } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { NO_KILL, type KillHooks } from './kill-points.js';

export interface OrderTrackerOptions {
  client: ExchangeClient;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  /** How long an unanswered order may stay invisible before absence counts toward `lost`. */
  graceMs: number;
  /** Lookups without the order (after the grace window) before it is marked lost. */
  lostAfterChecks: number;
  /** Symbols scanned for orders we did not create. */
  symbols: { spot: string[]; futures: string[] };
  events$?: Subject<ExecutionEvent>;
  hooks?: KillHooks;
}

export interface ReconcileReport {
  checked: number;
  resolved: number;
  lost: number;
  unresolved: number;
  fills: number;
  foreign: Array<{ surface: Surface; symbol: string; orderId: string; clientOid: string | null }>;
}

const PENDING: ReadonlySet<OrderState> = new Set(['sending', 'unknown', 'lost']);

export class OrderTracker {
  private readonly hooks: KillHooks;
  private readonly logger: Logger;

  constructor(private readonly o: OrderTrackerOptions) {
    this.hooks = o.hooks ?? NO_KILL;
    this.logger = o.logger.child({ component: 'order-tracker' });
  }

  private emit(e: ExecutionEvent): void {
    this.o.events$?.next(e);
  }

  /** One pass over every order not final. `scanForeign` also lists venue orders we did not create. */
  async reconcile(opts: { scanForeign?: boolean } = {}): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: 0, lost: 0, unresolved: 0, fills: 0, foreign: [] };
    const active = this.o.journal.activeOrders();
    const futuresSymbols = new Set([...active.filter((r) => r.surface === 'futures').map((r) => r.symbol), ...(opts.scanForeign ? this.o.symbols.futures : [])]);
    const futuresOpen = new Map<string, Order[]>();
    for (const s of futuresSymbols) futuresOpen.set(s, await this.o.client.openOrders('futures', s));

    let n = 0;
    for (const row of active) {
      report.checked++;
      if (++n === Math.ceil(active.length / 2)) this.hooks.at('during-reconcile');
      const venue = row.surface === 'futures' ? this.findFutures(futuresOpen.get(row.symbol) ?? [], row) : await this.findSpot(row);
      if (venue) await this.adopt(row, venue, report);
      else this.absent(row, report);
    }

    if (opts.scanForeign) {
      const ours = (o: Order) => (o.clientOid && this.o.journal.order(o.clientOid)) || this.o.journal.orderByOrderId(o.orderId);
      const scans: Array<[Surface, string, Order[]]> = [...futuresOpen.entries()].map(([s, os]) => ['futures', s, os]);
      for (const s of this.o.symbols.spot) scans.push(['spot', s, await this.o.client.openOrders('spot', s)]);
      for (const [surface, symbol, orders] of scans) {
        for (const o of orders) {
          if (ours(o)) continue;
          report.foreign.push({ surface, symbol, orderId: o.orderId, clientOid: o.clientOid });
          this.logger.warn({ surface, symbol, orderId: o.orderId, clientOid: o.clientOid }, 'order not created by this bot: left alone');
        }
      }
    }
    return report;
  }

  private findFutures(open: Order[], row: JournalOrder): Order | undefined {
    return open.find((o) => (row.orderId && o.orderId === row.orderId) || o.clientOid === row.clientOid);
  }

  private async findSpot(row: JournalOrder): Promise<Order | undefined> {
    const lookup = row.orderId ? { orderId: row.orderId } : { clientOid: row.clientOid };
    return (await this.o.client.order('spot', row.symbol, lookup)) ?? undefined;
  }

  private async adopt(row: JournalOrder, v: Order, report: ReconcileReport): Promise<void> {
    const now = this.o.clock.now();
    const base = { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now };
    const state: OrderState =
      v.status === 'filled' ? 'filled' : v.status === 'canceled' ? 'canceled' : v.status === 'untriggered' ? 'untriggered' : v.status === 'canceling' ? 'canceling' : 'open';
    const filled = v.filledSize.toString();
    const wasPending = PENDING.has(row.state);
    const keepCanceling = row.state === 'canceling' && (state === 'open' || state === 'untriggered');
    const next: OrderState = keepCanceling ? 'canceling' : state;
    const changed = next !== row.state || filled !== row.filledSize || row.orderId !== v.orderId;
    if (!changed) return;
    this.o.journal.updateOrder(
      row.clientOid,
      { state: next, orderId: v.orderId, filledSize: filled, avgPrice: v.avgFillPrice?.toString() ?? null, fee: v.fee?.toString() ?? null, absentChecks: 0 },
      wasPending ? `resolved from ${row.state}` : `venue says ${v.status}`,
      now,
    );
    if (wasPending) {
      report.resolved++;
      this.emit({ ...base, type: 'resolved', orderId: v.orderId, state: next });
    }
    if (row.state === 'untriggered' && next !== 'untriggered') this.emit({ ...base, type: 'triggered', orderId: v.orderId });
    if (filled !== row.filledSize) {
      if (row.surface === 'spot') report.fills += await this.recordSpotFills(row, v.orderId);
      this.emit({ ...base, type: next === 'filled' ? 'filled' : 'partially-filled', orderId: v.orderId, filledSize: v.filledSize, avgPrice: v.avgFillPrice });
    }
    if (next === 'canceled' && row.state !== 'canceled') this.emit({ ...base, type: 'canceled', orderId: v.orderId });
  }

  private async recordSpotFills(row: JournalOrder, orderId: string): Promise<number> {
    let added = 0;
    for (const f of await this.o.client.fills(row.symbol, orderId)) {
      if (this.o.journal.recordFill({ clientOid: row.clientOid, orderId, fillId: f.fillId, price: f.price.toString(), size: f.size.toString(), fee: f.fee.toString(), atMs: f.timestampMs })) added++;
    }
    return added;
  }

  private absent(row: JournalOrder, report: ReconcileReport): void {
    const now = this.o.clock.now();
    const base = { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now };
    if (PENDING.has(row.state)) {
      // Read-after-write lag: absence inside the grace window proves nothing.
      if (now - row.createdAt < this.o.graceMs) {
        report.unresolved++;
        return;
      }
      const checks = row.absentChecks + 1;
      if (row.state !== 'lost' && checks >= this.o.lostAfterChecks) {
        this.o.journal.updateOrder(row.clientOid, { state: 'lost', absentChecks: checks }, `not found ${checks} times: lost (treated as not placed, still checked)`, now);
        this.emit({ ...base, type: 'lost', reason: `not found at the venue ${checks} times after ${this.o.graceMs} ms` });
        report.lost++;
        return;
      }
      this.o.journal.updateOrder(row.clientOid, { absentChecks: checks }, 'not found', now);
      if (row.state !== 'lost') report.unresolved++;
      return;
    }
    // It was open (or being canceled) and the venue no longer lists it as open.
    if (row.surface === 'futures') {
      // Futures current orders say nothing about why an order left: filled, canceled or liquidated.
      const filled = Decimal.from(row.filledSize).eq(Decimal.from(row.size));
      const state: OrderState = filled ? 'filled' : 'closed';
      this.o.journal.updateOrder(row.clientOid, { state }, 'no longer among current orders (the venue does not say why)', now);
      return;
    }
    // Spot lookups find any order: absence of a known order is odd; count it and keep checking.
    this.o.journal.updateOrder(row.clientOid, { absentChecks: row.absentChecks + 1 }, 'lookup found nothing', now);
    report.unresolved++;
  }
}
