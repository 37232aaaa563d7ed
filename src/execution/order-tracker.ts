// The order tracker: brings the journal's orders that are not final in line with the venue, by query, and
// concludes nothing the venue may still show. Every order is looked up where the venue keeps it in any state
// (spot S3; futures current orders F5, then order detail F18 or history F19; futures trigger orders, position
// stops included, current trigger orders F21, then trigger history F22, by order id or client id), and only
// accepted as ours when the venue's client id matches (a replaced venue numbers its orders from 1 again). Absence
// counts only after the grace window for read-after-write lag: an unanswered order becomes `lost` after
// lostAfterChecks lookups (treated as not placed, still checked) and final `not-placed` after notPlacedAfterChecks
// more; an order that was open becomes final `vanished` once the venue has not known it for vanishAfterMs and
// vanishAfterChecks lookups. An order a batch answer left out is looked up as the answer comes, and its lookups to
// `lost` are spent together as soon as absence counts (left-out.ts), as a startup pass spends them. Fills are
// recorded once each (spot S2, futures F20). Orders the bot did not create are reported, not touched. Passes run one
// at a time. What a lookup or an absence does to an order's state is the lifecycle's (domain/order-lifecycle.ts);
// when, the bounds here.
import type { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import { fillSideOf, type ExecutionEvent } from '../domain/events.js';
import type { Surface } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient, TriggerOrder } from '../exchange/client.js';
import { ExchangeError } from '../exchange/errors.js';
import { transition, UNANSWERED_STATES, UNCONFIRMED_STATES, type OrderState } from '../domain/order-lifecycle.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Executor } from './executor.js';
import { NO_KILL, type KillHooks } from './kill-points.js';
import type { LeftOutSettler } from './left-out.js';
import { PassReads } from './pass-reads.js';
import { recordVenueFills } from './venue-fills.js';

export interface OrderTrackerOptions {
  client: ExchangeClient;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  /** How long an order may stay invisible (read-after-write lag) before its absence counts at all. */
  graceMs: number;
  /** Lookups without an unanswered order, after the grace window, before it is marked lost. */
  lostAfterChecks: number;
  /** Further lookups without a lost order before it is final (`not-placed`). Default 10. */
  notPlacedAfterChecks?: number;
  /** An order that was open becomes `vanished` once unseen for this long ... (default 120 s) */
  vanishAfterMs?: number;
  /** ... and after this many lookups without it (default 5). */
  vanishAfterChecks?: number;
  /** Symbols scanned for orders we did not create. */
  symbols: { spot: string[]; futures: string[] };
  events$?: Subject<ExecutionEvent>;
  hooks?: KillHooks;
}

/** An order whose outcome is still open: it holds the fence on new orders. */
export interface PendingOrder {
  clientOid: string;
  strategyId: string;
  symbol: string;
  state: OrderState;
  ageMs: number;
  absentChecks: number;
  /** The last lookup failed with this error. */
  error?: string;
}

export interface ReconcileReport {
  checked: number;
  resolved: number;
  lost: number;
  notPlaced: number;
  vanished: number;
  /** Orders whose outcome is unknown and not yet concluded: new orders wait for them. */
  unresolved: number;
  pending: PendingOrder[];
  fills: number;
  foreign: Array<{ surface: Surface; symbol: string; orderId: string; clientOid: string | null }>;
}

export class OrderTracker implements LeftOutSettler {
  private readonly hooks: KillHooks;
  private readonly logger: Logger;
  private readonly notPlacedAfterChecks: number;
  private readonly vanishAfterMs: number;
  private readonly vanishAfterChecks: number;
  /** The pass running (passes run one at a time: two lookups of one order must not both conclude it). */
  private running: Promise<unknown> = Promise.resolve();
  /** Unanswered orders a batch answer left out: every pass spends their lookups together, as at startup. */
  private readonly leftOut = new Set<string>();

  constructor(private readonly opts: OrderTrackerOptions) {
    this.hooks = opts.hooks ?? NO_KILL;
    this.logger = opts.logger.child({ component: 'order-tracker' });
    this.notPlacedAfterChecks = opts.notPlacedAfterChecks ?? 10;
    this.vanishAfterMs = opts.vanishAfterMs ?? 120_000;
    this.vanishAfterChecks = opts.vanishAfterChecks ?? 5;
    // The executor whose events these are hands over the orders its batch answers leave out.
  }

  private emit(e: ExecutionEvent): void {
    this.opts.events$?.next(e);
  }

  /**
   * One pass over every order not final. `scanForeign` also lists venue orders we did not create. `startup`
   * repeats the lookups of unanswered orders older than the grace window until they are concluded, so a restart
   * (or a venue that forgot everything) releases the fence within this one pass. One order whose lookup fails is
   * reported and left for the next pass; the others go on.
   */
  async reconcile(opts: { scanForeign?: boolean; startup?: boolean } = {}): Promise<ReconcileReport> {
    return this.exclusive(() => {
      // An operator may have settled orders by hand (`sextant orders resolve`) from another process.
      this.opts.journal.refresh();
      return this.pass(this.opts.journal.activeOrders(), opts);
    });
  }

  /**
   * Looks up these orders now (those not final among them), as a pass does: a stop whose cancel found nothing is
   * either gone or not visible yet, and only the venue's record says which.
   */
  async settle(clientOids: readonly string[]): Promise<ReconcileReport> {
    const wanted = new Set(clientOids);
    return this.exclusive(() =>
      this.pass(
        this.opts.journal.activeOrders().filter((r) => wanted.has(r.clientOid)),
        {},
      ),
    );
  }

  /**
   * Orders a batch answer left out, looked up now. The venue answered: only read-after-write lag can hide one it
   * placed, so inside the grace window their absence counts for nothing, as for any order; after it, their lookups
   * are spent at once (now, or at the first pass after the window) rather than one per pass.
   */
  async settleLeftOut(clientOids: readonly string[]): Promise<ReconcileReport> {
    for (const c of clientOids) this.leftOut.add(c);
    return this.settle(clientOids);
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.running.then(fn, fn);
    this.running = next.catch(() => undefined);
    return next;
  }

  private async pass(active: JournalOrder[], opts: { scanForeign?: boolean; startup?: boolean }): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, resolved: 0, lost: 0, notPlaced: 0, vanished: 0, unresolved: 0, pending: [], fills: 0, foreign: [] };
    // Trigger orders are not among current orders: F5 is read for the symbols of plain futures orders only.
    const futuresSymbols = new Set<string>();
    for (const r of active) if (r.surface === 'futures' && !r.isTrigger) futuresSymbols.add(r.symbol);
    if (opts.scanForeign) for (const s of this.opts.symbols.futures) futuresSymbols.add(s);
    const oldestTrigger = new Map<string, number>();
    for (const r of active) if (r.isTrigger) oldestTrigger.set(r.symbol, Math.min(oldestTrigger.get(r.symbol) ?? Number.POSITIVE_INFINITY, r.createdAtMs));
    const futuresOpen = new Map<string, Order[]>();
    for (const s of futuresSymbols) {
      try {
        futuresOpen.set(s, await this.opts.client.openOrders('futures', s));
      } catch (err) {
        // Without the list every order of the symbol is looked up one by one (F18/F19).
        if (opts.scanForeign) throw err;
        this.logger.warn({ symbol: s, err: (err as Error).message }, 'current orders unreadable: looking orders up one by one');
      }
    }

    const reads = new PassReads(this.opts.client, futuresOpen, oldestTrigger);
    const bound = this.opts.lostAfterChecks + 1;
    let n = 0;
    for (const first of active) {
      report.checked++;
      if (++n === Math.ceil(active.length / 2)) this.hooks.at('during-reconcile');
      let row: JournalOrder | undefined = first;
      const atOnce = !!opts.startup || this.leftOut.has(first.clientOid);
      try {
        for (let attempt = 0; row && attempt < bound; attempt++) {
          // Looked up again at once: trigger lists are read anew.
          if (attempt > 0 && row.isTrigger) reads.forgetTriggers(row.symbol);
          const venue = await this.find(row, reads);
          // The executor may have changed the order meanwhile (a cancel answered): it is judged again next pass. Only
          // what the lookup decides counts: a cancel that found nothing touches the row's note, not its standing, and
          // a strategy re-cancelling an unanswered order on every update must not keep it from being concluded.
          const now = this.opts.journal.order(row.clientOid);
          if (!now || now.state !== row.state || now.orderId !== row.orderId || now.filledSize !== row.filledSize) break;
          if (venue) {
            await this.adopt(row, venue, report);
            break;
          }
          this.absent(row, report, atOnce && attempt + 1 < bound && this.settleNow(row));
          if (!atOnce) break;
          const next = this.opts.journal.order(row.clientOid);
          row = next && this.settleNow(next) ? next : undefined;
        }
      } catch (err) {
        const msg = err instanceof ExchangeError ? err.summary() : (err as Error).message;
        this.logger.warn({ clientOid: first.clientOid, symbol: first.symbol, err: msg }, 'order lookup failed: tried again next pass');
        if (UNANSWERED_STATES.has(first.state)) {
          report.unresolved++;
          report.pending.push({
            clientOid: first.clientOid,
            strategyId: first.strategyId,
            symbol: first.symbol,
            state: first.state,
            ageMs: this.opts.clock.now() - first.createdAtMs,
            absentChecks: first.absentChecks,
            error: msg,
          });
        }
      }
    }

    // Left-out orders concluded (or settled by hand) are done with.
    for (const c of this.leftOut) {
      const r = this.opts.journal.order(c);
      if (!r || !UNANSWERED_STATES.has(r.state)) this.leftOut.delete(c);
    }

    if (opts.scanForeign) {
      // By client id where the venue gives one: a replaced venue's order may carry an id one of ours once had.
      const ours = (listed: Order) => (listed.clientOid ? this.opts.journal.order(listed.clientOid) : this.opts.journal.orderByOrderId(listed.orderId));
      const scans: Array<[Surface, string, Order[]]> = [...futuresOpen.entries()].map(([s, os]) => ['futures', s, os]);
      for (const s of this.opts.symbols.spot) scans.push(['spot', s, await this.opts.client.openOrders('spot', s)]);
      for (const [surface, symbol, orders] of scans) {
        for (const listed of orders) {
          if (ours(listed)) continue;
          report.foreign.push({ surface, symbol, orderId: listed.orderId, clientOid: listed.clientOid });
          this.logger.warn({ surface, symbol, orderId: listed.orderId, clientOid: listed.clientOid }, 'order not created by this bot: left alone');
        }
      }
    }
    return report;
  }

  /**
   * At startup (and for an order an answer left out), an unanswered order older than the grace window is looked up
   * again at once until it is concluded (only those hold the fence); an open one vanishes only after its time
   * without the venue, pass by pass.
   */
  private settleNow(row: JournalOrder): boolean {
    return UNANSWERED_STATES.has(row.state) && this.opts.clock.now() - row.createdAtMs >= this.opts.graceMs;
  }

  /** The venue's record of an order, only when its client id (where the venue gives one) is the row's. */
  private async find(row: JournalOrder, reads: PassReads): Promise<Order | undefined> {
    const same = (v: Order | null | undefined): Order | undefined => {
      if (!v) return undefined;
      if (v.clientOid && v.clientOid !== row.clientOid) {
        this.logger.warn(
          { clientOid: row.clientOid, orderId: v.orderId, venueClientOid: v.clientOid },
          'the venue gives this order id to another order: not ours',
        );
        return undefined;
      }
      return v;
    };
    // By client id, or by the venue id where the venue gives no client id.
    const listed = (v: Order) => v.clientOid === row.clientOid || (!!row.orderId && v.orderId === row.orderId && !v.clientOid);
    if (row.isTrigger) {
      // Trigger orders (position stops too): current ones (F21), then final ones (F22); F5 and F18 do not show them.
      return (await reads.openTriggers(row.symbol)).find(listed) ?? (await reads.finishedTriggers(row.symbol)).find(listed);
    }
    if (row.surface === 'futures') {
      const open = (reads.futuresOpen.get(row.symbol) ?? []).find(listed);
      if (open) return open;
    }
    // Spot S3 finds any order; futures detail (F18) by id, or history (F19) by client id, find final ones too.
    const lookup = row.orderId ? { orderId: row.orderId } : { clientOid: row.clientOid, createdAfterMs: row.createdAtMs - 60_000 };
    return same(await this.opts.client.order(row.surface, row.symbol, lookup));
  }

  private async adopt(row: JournalOrder, v: Order, report: ReconcileReport): Promise<void> {
    const now = this.opts.clock.now();
    // Each event written out whole (an object spread first in a literal costs microseconds, per order here).
    const { strategyId, surface, symbol, clientOid } = row;
    const reported = transition(row.state, { type: 'venue-reported', status: v.status });
    if (!reported.ok) return; // final (only orders not final are looked up)
    const next: OrderState = reported.to;
    const filled = v.filledSize.toString();
    const wasPending = UNCONFIRMED_STATES.has(row.state);
    // A trigger order's price as the venue holds it (a move whose answer was lost, say).
    const venueTrigger = 'triggerPrice' in v && v.triggerPrice ? (v as TriggerOrder).triggerPrice!.toString() : null;
    const triggerMoved = venueTrigger !== null && (row.triggerPrice === null || !Decimal.from(row.triggerPrice).eq((v as TriggerOrder).triggerPrice!));
    const changed = next !== row.state || filled !== row.filledSize || row.orderId !== v.orderId || row.absentChecks > 0 || triggerMoved;
    // Seen: refreshed on a change, or when the last sighting is getting old (a write per order per pass would cost).
    const stale = row.seenAtMs === null || now - row.seenAtMs >= this.vanishAfterMs / 4;
    if (!changed && !stale) return;
    // Fills first: if reading them fails, the row stays as it was and the next pass reads them again.
    const fills = filled !== row.filledSize ? await recordVenueFills(this.opts.client, this.opts.journal, row, v.orderId) : 0;
    const patch: Partial<JournalOrder> = {
      state: next,
      orderId: v.orderId,
      filledSize: filled,
      avgPrice: v.avgFillPrice?.toString() ?? null,
      fee: v.fee?.toString() ?? null,
      absentChecks: 0,
      absentSinceMs: null,
      seenAtMs: now,
    };
    if (triggerMoved) patch.triggerPrice = venueTrigger;
    this.opts.journal.updateOrder(
      row.clientOid,
      patch,
      !changed
        ? 'seen at the venue'
        : wasPending
          ? `resolved from ${row.state}`
          : triggerMoved && next === row.state && filled === row.filledSize
            ? `venue holds the trigger at ${venueTrigger}`
            : `venue says ${v.status}`,
      now,
    );
    if (!changed) return;
    if (wasPending) {
      report.resolved++;
      this.logger.info({ clientOid: row.clientOid, orderId: v.orderId, was: row.state, now: next }, 'order resolved');
      this.emit({ strategyId, surface, symbol, clientOid, atMs: now, type: 'resolved', orderId: v.orderId, state: next });
    }
    // Canceled while it waited (the venue's cancel of a flat position's stops, say) is not triggered.
    const fired = next !== 'canceled' || !v.filledSize.isZero() || ('triggeredAtMs' in v && (v as TriggerOrder).triggeredAtMs !== null);
    if (row.state === 'untriggered' && next !== 'untriggered' && fired)
      this.emit({ strategyId, surface, symbol, clientOid, atMs: now, type: 'triggered', orderId: v.orderId });
    if (filled !== row.filledSize) {
      report.fills += fills;
      const { side, positionSide, reduceOnly } = fillSideOf(row);
      this.emit({
        strategyId,
        surface,
        symbol,
        clientOid,
        atMs: now,
        type: next === 'filled' ? 'filled' : 'partially-filled',
        orderId: v.orderId,
        filledSize: v.filledSize,
        avgPrice: v.avgFillPrice,
        side,
        positionSide,
        reduceOnly,
      });
    }
    if (next === 'canceled' && row.state !== 'canceled') this.emit({ strategyId, surface, symbol, clientOid, atMs: now, type: 'canceled', orderId: v.orderId });
  }

  private absent(row: JournalOrder, report: ReconcileReport, again: boolean): void {
    const now = this.opts.clock.now();
    const base = { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now };
    const ageMs = now - row.createdAtMs;
    const holds = () => {
      if (again) return; // looked up again at once: counted when it is concluded or left
      report.unresolved++;
      report.pending.push({
        clientOid: row.clientOid,
        strategyId: row.strategyId,
        symbol: row.symbol,
        state: row.state,
        ageMs,
        absentChecks: row.absentChecks,
      });
    };
    // Read-after-write lag: absence inside the grace window proves nothing, whatever the order's state.
    if (ageMs < this.opts.graceMs) {
      if (UNANSWERED_STATES.has(row.state)) holds();
      return;
    }
    const checks = row.absentChecks + 1;
    const since = row.absentSinceMs ?? now;
    // What the absence concludes once its bound is met (lost, not placed, vanished): the lifecycle says; when, the bounds here.
    const concluded = transition(row.state, { type: 'absence-concluded' });
    if (!concluded.ok) return; // final (only orders not final are looked up)
    if (concluded.to === 'lost') {
      if (checks >= this.opts.lostAfterChecks) {
        this.opts.journal.updateOrder(
          row.clientOid,
          { state: concluded.to, absentChecks: checks },
          `not found ${checks} times: lost (treated as not placed, still checked)`,
          now,
        );
        this.logger.warn(
          { clientOid: row.clientOid, symbol: row.symbol, checks },
          'order lost: not found at the venue after the grace window; treated as not placed, still checked',
        );
        this.emit({ ...base, type: 'lost', reason: `not found at the venue ${checks} times after ${this.opts.graceMs} ms` });
        report.lost++;
        return;
      }
      this.opts.journal.updateOrder(row.clientOid, { absentChecks: checks }, 'not found', now);
      row = Object.assign({}, row, { absentChecks: checks });
      holds();
      return;
    }
    if (concluded.to === 'not-placed') {
      if (checks >= this.opts.lostAfterChecks + this.notPlacedAfterChecks) {
        const reason = `not found in ${checks} lookups over ${Math.round(ageMs / 1000)} s`;
        this.opts.journal.updateOrder(row.clientOid, { state: concluded.to, absentChecks: checks }, `${reason}: not placed (final)`, now);
        this.logger.info({ clientOid: row.clientOid, symbol: row.symbol, checks }, 'lost order concluded: not placed');
        this.emit({ ...base, type: 'vanished', state: 'not-placed', reason });
        report.notPlaced++;
        return;
      }
      this.opts.journal.updateOrder(row.clientOid, { absentChecks: checks }, 'not found', now);
      return;
    }
    // It was open (or being canceled, or waiting for its trigger) and the venue does not know it now: concluded
    // only after vanishAfterMs of lookups that all missed it (a passing not-found proves nothing).
    const absentMs = now - since;
    if (checks >= this.vanishAfterChecks && absentMs >= this.vanishAfterMs) {
      const unseenMs = now - (row.seenAtMs ?? row.createdAtMs);
      const reason = `unknown to the venue in ${checks} lookups in a row over ${Math.round(absentMs / 1000)} s${row.orderId ? ` by order id ${row.orderId}` : ''}, unseen for ${Math.round(unseenMs / 1000)} s`;
      this.opts.journal.updateOrder(row.clientOid, { state: concluded.to, absentChecks: checks }, `${reason}: vanished (final)`, now);
      this.logger.warn(
        { clientOid: row.clientOid, orderId: row.orderId, symbol: row.symbol, was: row.state, checks, unseenMs },
        'order vanished: the venue does not know it any more',
      );
      this.emit({ ...base, type: 'vanished', state: 'vanished', reason });
      report.vanished++;
      return;
    }
    this.opts.journal.updateOrder(
      row.clientOid,
      { absentChecks: checks, absentSinceMs: since },
      `not found at the venue (${checks} of ${this.vanishAfterChecks})`,
      now,
    );
  }
}

/** The orders of a journal whose outcome is unknown: what holds (or will hold) the fence on new orders. */
export function unansweredOrders(journal: Journal, nowMs: number): PendingOrder[] {
  return journal
    .activeOrders()
    .filter((r) => UNANSWERED_STATES.has(r.state))
    .map((r) => ({
      clientOid: r.clientOid,
      strategyId: r.strategyId,
      symbol: r.symbol,
      state: r.state,
      ageMs: nowMs - r.createdAtMs,
      absentChecks: r.absentChecks,
    }));
}

/** Says what holds the fence, in a line a person can act on. */
export function describePending(pending: PendingOrder[]): string {
  const shown = pending.slice(0, 5).map((p) => `${p.clientOid} (${p.state}, ${Math.round(p.ageMs / 1000)} s old, not found ${p.absentChecks}×)`);
  return `${pending.length} order(s) with an unknown outcome: ${shown.join(', ')}${pending.length > 5 ? ', …' : ''}`;
}

/**
 * One reconciliation; new orders are allowed once no order with an unknown outcome is left (the fence stays
 * otherwise, and says which orders hold it). A failed reconciliation keeps the fence of a start with its reason.
 */
export async function reconcileAndOpen(
  tracker: OrderTracker,
  executor: Executor,
  logger: Logger,
  opts: { scanForeign?: boolean; startup?: boolean } = {},
): Promise<ReconcileReport | undefined> {
  let r: ReconcileReport;
  try {
    r = await tracker.reconcile(opts);
  } catch (err) {
    if (executor.fenced) {
      const reason = `reconciliation failed: ${(err as Error).message}`;
      if (executor.fenced !== reason) logger.warn({ reason }, 'trading fenced (cancels allowed)');
      executor.fence(reason);
    } else logger.warn({ err: (err as Error).message }, 'reconciliation failed: retried on schedule');
    return undefined;
  }
  const changed = r.resolved + r.lost + r.notPlaced + r.vanished + r.fills;
  if (changed > 0)
    logger.info({ resolved: r.resolved, lost: r.lost, notPlaced: r.notPlaced, vanished: r.vanished, fills: r.fills }, 'reconciliation changed orders');
  if (!executor.fenced) return r;
  if (r.unresolved === 0) {
    executor.unfence();
    logger.info({ resolved: r.resolved, lost: r.lost, vanished: r.vanished, foreign: r.foreign.length }, 'reconciled: trading');
    return r;
  }
  const reason = describePending(r.pending);
  // Said again when the orders holding it change, not on every pass.
  const holders = r.pending.map((p) => p.clientOid).join(',');
  if (lastHolders.get(executor) !== holders) logger.warn({ reason, orders: r.pending }, 'trading fenced until these orders are resolved (cancels allowed)');
  lastHolders.set(executor, holders);
  executor.fence(reason);
  return r;
}

const lastHolders = new WeakMap<Executor, string>();
