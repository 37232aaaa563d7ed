// What one pass of the order tracker reads once per symbol and shares between the orders it looks up: current
// futures orders (F5), current trigger orders (F21) and trigger-order history (F22).
import type { Order } from '../domain/order.js';
import type { ExchangeClient, TriggerOrder } from '../exchange/client.js';
import { ENDPOINTS } from '../exchange/endpoints.js';

/** Trigger history (F22) looked at before a trigger order's creation, for clocks apart; and pages read at most per pass. */
const HISTORY_MARGIN_MS = 60_000;
const HISTORY_PAGES = 5;

/**
 * The reads of one pass, each made once per symbol when an order needs it: current orders (F5, read up front),
 * current trigger orders (F21) and trigger history (F22, back to the oldest trigger order looked up). A read that
 * failed fails the lookups that need it (F5: the orders are then looked up one by one).
 */
export class PassReads {
  private readonly triggers = new Map<string, Promise<TriggerOrder[]>>();
  private readonly history = new Map<string, Promise<TriggerOrder[]>>();

  constructor(
    private readonly client: ExchangeClient,
    readonly futuresOpen: Map<string, Order[]>,
    /** Per symbol, the creation time of its oldest trigger order to look up. */
    private readonly oldestTrigger: Map<string, number>,
  ) {}

  /** The trigger lists of a symbol are read again at their next use. */
  forgetTriggers(symbol: string): void {
    this.triggers.delete(symbol);
    this.history.delete(symbol);
  }

  /** Current trigger orders of a symbol (F21). */
  openTriggers(symbol: string): Promise<TriggerOrder[]> {
    let p = this.triggers.get(symbol);
    if (!p) this.triggers.set(symbol, (p = this.client.triggerOrders(symbol)));
    return p;
  }

  /** Final trigger orders of a symbol since (a margin before) its oldest one looked up, newest first, a few pages deep. */
  finishedTriggers(symbol: string): Promise<TriggerOrder[]> {
    let p = this.history.get(symbol);
    if (!p) this.history.set(symbol, (p = this.readHistory(symbol)));
    return p;
  }

  private async readHistory(symbol: string): Promise<TriggerOrder[]> {
    const startMs = (this.oldestTrigger.get(symbol) ?? 0) - HISTORY_MARGIN_MS;
    const limit = ENDPOINTS.F22.maxPageSize!;
    const out: TriggerOrder[] = [];
    let endMs: number | undefined;
    for (let page = 0; page < HISTORY_PAGES; page++) {
      const rows = await this.client.triggerOrderHistory(symbol, { startMs, ...(endMs !== undefined ? { endMs } : {}), limit });
      out.push(...rows);
      const oldest = rows.reduce((m, r) => Math.min(m, r.createdAtMs ?? Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
      // A short page is the last; a page whose oldest time does not move back cannot be paged further.
      if (rows.length < limit || !Number.isFinite(oldest) || (endMs !== undefined && oldest - 1 >= endMs) || oldest - 1 < startMs) break;
      endMs = oldest - 1;
    }
    return out;
  }
}
