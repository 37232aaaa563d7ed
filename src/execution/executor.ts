// The executor: turns intents into exchange calls that never duplicate or lose an order. Every order gets a
// client id from the journal and is written down before it is sent; answers are per item; an unknown outcome
// stays unknown until the order tracker resolves it by query (an item a batch answer left out is handed to it at
// once): it is never re-sent. A strategy cancels only its own orders, and a cancel it asks for is sent whatever the
// journal believes about the order. Every change of an order's state goes through the lifecycle
// (domain/order-lifecycle.ts). Protect intents pass the gate here and go to the stop manager, whose position stops
// (F23, F24, F9) are sent through this same journaled path.
import { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import { fillSideOf, type ExecutionEvent } from '../domain/events.js';
import type { Intent, OrderSpec, ProtectIntent } from '../domain/intent.js';
import type { Fill, Instrument, Surface } from '../domain/market.js';
import { futuresSide, type Order } from '../domain/order.js';
import { FINAL_STATES, INITIAL_ORDER_STATE, mustTransition, transition, type OrderEvent } from '../domain/order-lifecycle.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderRequest, TpSlChange } from '../exchange/client.js';
import { ENDPOINTS } from '../exchange/endpoints.js';
import { ExchangeError } from '../exchange/errors.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { NO_KILL, type KillHooks } from './kill-points.js';
import { leftOutOfAnswer, settleLeftOut, type LeftOutSettler } from './left-out.js';
import { riskContextOf } from './risk-context.js';
import type { ProtectionKeeper, StopOrder } from './stop-orders.js';
import { recordFills } from './venue-fills.js';
import type { RiskContext, RiskGate } from './risk.js';

export interface ExecutorOptions {
  client: ExchangeClient;
  journal: Journal;
  risk: RiskGate;
  clock: Clock;
  logger: Logger;
  instruments: Map<string, Instrument>;
  /** Latest trustworthy price of a symbol (from the market data streams). */
  reference: RiskContext['reference'];
  /** The open orders the venue listed at the last poll: the open-order caps count them as well as the journal. */
  listed?: () => readonly Order[];
  hooks?: KillHooks;
}

function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/**
 * Did the order reach the venue (what the order-rate breaker counts)? Accepted, unknown, or refused by the venue
 * for what it is (a runaway strategy whose orders are all refused still floods the venue, which disables keys
 * after frequent invalid requests); not a whole request turned away at the door (429, timestamp, our own halt).
 */
function reachedVenue(r: ItemResult): boolean {
  if (r.outcome !== 'rejected') return true;
  return (
    r.error.code !== undefined &&
    (r.error.category === 'invalid-order' ||
      r.error.category === 'insufficient-funds' ||
      r.error.category === 'bad-request' ||
      r.error.category === 'not-found')
  );
}

type Denied = Extract<ExecutionEvent, { type: 'denied' }>;

export class Executor {
  readonly events$ = new Subject<ExecutionEvent>();
  private fencedBy: string | null = 'not reconciled yet';
  private readonly startedAtMs: number;
  private readonly hooks: KillHooks;
  private readonly logger: Logger;
  private keeper: ProtectionKeeper | undefined;
  private leftOutSettler: LeftOutSettler | undefined;

  constructor(private readonly opts: ExecutorOptions) {
    this.hooks = opts.hooks ?? NO_KILL;
    this.logger = opts.logger.child({ component: 'executor' });
    this.startedAtMs = opts.clock.now();
  }

  /** New orders wait until reconciliation has succeeded; cancels always go. */
  get fenced(): string | null {
    return this.fencedBy;
  }
  fence(reason: string): void {
    this.fencedBy = reason;
  }
  unfence(): void {
    this.fencedBy = null;
  }

  /** Protect intents that pass the gate go to `keeper`; without one they are denied. */
  keepProtectionWith(keeper: ProtectionKeeper): void {
    this.keeper = keeper;
  }

  /** Who looks up the orders an answer left out, right after it (the order tracker); without one, the reconciliations do. */
  settleLeftOutWith(settler: LeftOutSettler): void {
    this.leftOutSettler = settler;
  }

  private emit(out: ExecutionEvent[], e: ExecutionEvent): void {
    out.push(e);
    this.events$.next(e);
  }

  /** What the gate's caps count now (risk-context.ts). */
  private riskContext(): RiskContext {
    return riskContextOf(this.opts, this.opts.clock.now());
  }

  async submit(intent: Intent): Promise<ExecutionEvent[]> {
    const out: ExecutionEvent[] = [];
    const now = this.opts.clock.now();
    this.hooks.at('before-journal');
    const intentId = this.opts.journal.recordIntent(intent.strategyId, intent.kind, JSON.stringify(intent), now);
    switch (intent.kind) {
      case 'place':
        await this.place(intent, intentId, out);
        break;
      case 'place-trigger':
        await this.placeTrigger(intent, intentId, out);
        break;
      case 'cancel': {
        const rows = this.ownRows(intent, out, [
          ...(intent.orderIds ?? []).map((id) => ({ ref: `order id ${id}`, row: this.opts.journal.orderByOrderId(id) })),
          ...(intent.clientOids ?? []).map((c) => ({ ref: `client id ${c}`, row: this.opts.journal.order(c) })),
        ]);
        await this.cancelRows(
          rows.filter((r) => !r.isTrigger),
          out,
          intent.orderIds ? 'named' : 'trusted',
        );
        // A trigger named in a plain cancel goes through its own endpoint (F9), not silently nowhere.
        for (const r of rows.filter((x) => x.isTrigger)) await this.cancelTriggerRow(r, out);
        break;
      }
      case 'cancel-all': {
        // The strategy's own orders on that symbol: other strategies' and foreign orders are left alone.
        const rows = this.opts.journal
          .activeOrders()
          // Every active one, lost ones included: they may rest, and a cancel that finds nothing costs nothing.
          .filter((r) => r.strategyId === intent.strategyId && r.symbol === intent.symbol && r.surface === intent.surface && !r.isTrigger);
        await this.cancelRows(rows, out, 'trusted');
        break;
      }
      case 'cancel-trigger': {
        const [row] = this.ownRows(intent, out, [{ ref: `order id ${intent.orderId}`, row: this.opts.journal.orderByOrderId(intent.orderId) }]);
        if (row) await this.cancelTriggerRow(row, out);
        break;
      }
      case 'protect':
        await this.protect(intent, intentId, out);
        break;
    }
    return out;
  }

  /**
   * A protect intent: checked by the gate, then kept by the stop manager. Not fenced: it is what the strategy wants,
   * and the manager places nothing while trading is fenced.
   */
  private async protect(intent: ProtectIntent, intentId: number, out: ExecutionEvent[]): Promise<void> {
    const denials = this.keeper
      ? this.opts.risk.checkProtect(intent, this.riskContext())
      : [{ reason: 'no-stop-manager', detail: 'this core keeps no managed stops' }];
    if (denials.length > 0) {
      this.denyAll(out, intent.kind, this.denials(intent, 'futures', intent.symbol, denials));
      return;
    }
    await this.keeper!.protect(intent, intentId, out);
  }

  /**
   * Places a position's stop-loss or take-profit (F23) for the stop manager: written down first (a trigger row with
   * its role), then sent; an unknown outcome is left to the order tracker, never re-sent. Denied while fenced.
   * Returns the venue's answer (undefined: not sent).
   */
  async placeStop(stop: StopOrder, out: ExecutionEvent[]): Promise<ItemResult | undefined> {
    if (this.fencedBy) {
      this.denyAll(out, 'protect', [
        {
          type: 'denied',
          strategyId: stop.strategyId,
          surface: 'futures',
          symbol: stop.symbol,
          atMs: this.opts.clock.now(),
          reason: 'fenced',
          detail: `${stop.role}: ${this.fencedBy}`,
        },
      ]);
      return undefined;
    }
    const spec: OrderSpec = {
      side: futuresSide(stop.positionSide, true),
      kind: 'market',
      timeInForce: 'gtc',
      size: stop.size,
      positionSide: stop.positionSide,
      reduceOnly: true,
    };
    const row: JournalOrder = Object.assign({}, this.newRows(stop, stop.intentId, 'futures', stop.symbol, [spec], stop.triggerPrice)[0]!, { role: stop.role });
    return this.sendOne(row, out, (clientOid) =>
      this.opts.client.placeTpSl({
        symbol: stop.symbol,
        clientOid,
        role: stop.role,
        positionSide: stop.positionSide,
        size: stop.size,
        triggerPrice: stop.triggerPrice,
      }),
    );
  }

  /**
   * Moves a position stop in place (F24) to a new trigger price. Accepted: the row takes the new price. Refused or
   * unanswered: the row keeps the price it had (noted), and a later look at the venue (the tracker reads the
   * trigger price back) or another move settles it; a move is a price to be at, so sending it again is harmless.
   */
  async moveStop(row: JournalOrder, triggerPrice: Decimal, triggerPriceType: NonNullable<TpSlChange['triggerPriceType']>): Promise<ItemResult> {
    const res = await this.opts.client.modifyTpSl({ symbol: row.symbol, orderId: row.orderId!, triggerPrice, triggerPriceType });
    const now = this.opts.clock.now();
    if (res.outcome === 'accepted')
      this.opts.journal.updateOrder(
        row.clientOid,
        { triggerPrice: triggerPrice.toString(), lastError: null },
        `moved to ${triggerPrice.toString()} (${triggerPriceType} price)`,
        now,
      );
    else
      this.opts.journal.updateOrder(
        row.clientOid,
        { lastError: res.error.summary() },
        `move to ${triggerPrice.toString()} ${res.outcome === 'unknown' ? 'unanswered' : 'refused'}: ${res.error.category}`,
        now,
      );
    return res;
  }

  /** Cancels a position stop (F9) for the stop manager; the answer as the venue gave it (undefined: no venue id, not sent). */
  async cancelStop(row: JournalOrder, out: ExecutionEvent[]): Promise<ItemResult | undefined> {
    return this.cancelTriggerRow(row, out);
  }

  /**
   * Cancels every order of a symbol this bot placed (shutdown): resting limit orders always, trigger orders
   * only when `triggers` is set. Returns the events and the triggers left in place.
   */
  async cancelAllOwn(surface: Surface, symbol: string, triggers: boolean): Promise<{ events: ExecutionEvent[]; keptTriggers: JournalOrder[] }> {
    const out: ExecutionEvent[] = [];
    const rows = this.opts.journal.activeOrders().filter((r) => r.symbol === symbol && r.surface === surface);
    await this.cancelRows(
      rows.filter((r) => !r.isTrigger),
      out,
      'trusted',
    );
    const keptTriggers: JournalOrder[] = [];
    for (const r of rows.filter((x) => x.isTrigger)) {
      // A trigger is cancelled by its venue id: one whose placing is unanswered has none, and stays (reported).
      if (triggers && r.orderId) await this.cancelTriggerRow(r, out);
      else keptTriggers.push(r);
    }
    return { events: out, keptTriggers };
  }

  /** A venue id this process can trust: answered or seen by the venue since it started (a replaced venue reuses ids). */
  private trustedId(r: JournalOrder): string | null {
    if (!r.orderId) return null;
    return r.createdAtMs >= this.startedAtMs || (r.seenAtMs ?? -Infinity) >= this.startedAtMs ? r.orderId : null;
  }

  /** The rows a cancel intent names that belong to the strategy and its symbol; every other one is denied. */
  private ownRows(
    intent: Extract<Intent, { kind: 'cancel' | 'cancel-trigger' }>,
    out: ExecutionEvent[],
    named: Array<{ ref: string; row: JournalOrder | undefined }>,
  ): JournalOrder[] {
    const surface: Surface = intent.kind === 'cancel' ? intent.surface : 'futures';
    const own: JournalOrder[] = [];
    const denied: Denied[] = [];
    const now = this.opts.clock.now();
    for (const { ref, row } of named) {
      const why = !row
        ? `${ref} is not an order this bot placed`
        : row.strategyId !== intent.strategyId
          ? `${ref} belongs to strategy ${row.strategyId}`
          : row.symbol !== intent.symbol || row.surface !== surface
            ? `${ref} is on ${row.symbol}, not ${intent.symbol}`
            : undefined;
      if (why) denied.push({ type: 'denied', strategyId: intent.strategyId, surface, symbol: intent.symbol, atMs: now, reason: 'not-own-order', detail: why });
      else own.push(row!);
    }
    this.denyAll(out, intent.kind, denied);
    return own;
  }

  /** Records denials in one transaction, then tells everyone. */
  private denyAll(out: ExecutionEvent[], intentKind: string, denied: Denied[]): void {
    if (denied.length === 0) return;
    this.opts.journal.recordRiskDecisions(denied.map((d) => ({ strategyId: d.strategyId, intentKind, reason: d.reason, detail: d.detail, atMs: d.atMs })));
    for (const d of denied) this.emit(out, d);
  }

  private newRows(intent: { strategyId: string }, intentId: number, surface: Surface, symbol: string, specs: OrderSpec[], trigger?: Decimal): JournalOrder[] {
    const oids = this.opts.journal.nextClientOids(intent.strategyId, specs.length);
    const now = this.opts.clock.now();
    return specs.map((s, i) => ({
      clientOid: oids[i]!,
      strategyId: intent.strategyId,
      intentId,
      surface,
      symbol,
      side: s.side,
      kind: s.kind,
      timeInForce: s.timeInForce,
      price: s.price ? s.price.toString() : null,
      size: s.size.toString(),
      positionSide: surface === 'futures' ? (s.positionSide ?? (s.side === 'buy' ? 'long' : 'short')) : null,
      reduceOnly: s.reduceOnly ?? false,
      isTrigger: trigger !== undefined,
      triggerPrice: trigger ? trigger.toString() : null,
      orderId: null,
      state: INITIAL_ORDER_STATE,
      filledSize: '0',
      avgPrice: null,
      fee: null,
      createdAtMs: now,
      updatedAtMs: now,
      seenAtMs: null,
      absentChecks: 0,
      absentSinceMs: null,
      lastError: null,
    }));
  }

  private denials(intent: Intent, surface: Surface, symbol: string, list: Array<{ reason: string; detail: string }>): Denied[] {
    const now = this.opts.clock.now();
    return list.map((d) => ({ type: 'denied', strategyId: intent.strategyId, surface, symbol, atMs: now, reason: d.reason, detail: d.detail }));
  }

  private async place(intent: Extract<Intent, { kind: 'place' }>, intentId: number, out: ExecutionEvent[]): Promise<void> {
    if (this.fencedBy) {
      this.denyAll(
        out,
        intent.kind,
        this.denials(intent, intent.surface, intent.symbol, [
          { reason: 'fenced', detail: `${Array.isArray(intent.orders) ? intent.orders.length : 0} order(s): ${this.fencedBy}` },
        ]),
      );
      return;
    }
    const { allowed, denials } = this.opts.risk.checkPlace(intent, this.riskContext());
    this.denyAll(out, intent.kind, this.denials(intent, intent.surface, intent.symbol, denials));
    if (allowed.length === 0) return;
    const rows = this.newRows(intent, intentId, intent.surface, intent.symbol, allowed);
    this.opts.journal.insertOrders(rows);
    this.hooks.at('after-journal');
    const max = ENDPOINTS[intent.surface === 'spot' ? 'S6' : 'F6'].maxBatch!;
    const leftOut: string[] = [];
    for (const batch of chunks(rows, max)) {
      const reqs: OrderRequest[] = batch.map((r) => Object.assign({}, allowed[rows.indexOf(r)]!, { clientOid: r.clientOid }));
      const results = await this.opts.client.placeOrders(intent.surface, intent.symbol, reqs);
      this.hooks.at('after-send');
      results.forEach((res, i) => {
        this.applyPlaceResult(batch[i]!, res, out);
        if (leftOutOfAnswer(res)) leftOut.push(batch[i]!.clientOid);
        if (i === 0) this.hooks.at('after-journal-update');
      });
      this.opts.risk.recordSent(results.filter(reachedVenue).length, this.opts.clock.now());
    }
    // Left out of an answer: looked up now, not at the scheduled reconciliations (left-out.ts).
    await settleLeftOut(this.leftOutSettler, leftOut, this.logger);
  }

  private applyPlaceResult(row: JournalOrder, res: ItemResult, out: ExecutionEvent[]): void {
    const now = this.opts.clock.now();
    // Each event written out whole (an object spread first in a literal costs microseconds, per order here).
    const { strategyId, surface, symbol, clientOid } = row;
    switch (res.outcome) {
      case 'accepted': {
        const state = mustTransition(row.state, { type: 'place-accepted', trigger: row.isTrigger });
        this.opts.journal.updateOrder(row.clientOid, { state, orderId: res.orderId }, 'accepted', now);
        this.emit(out, { strategyId, surface, symbol, clientOid, atMs: now, type: 'accepted', orderId: res.orderId, trigger: row.isTrigger });
        return;
      }
      case 'rejected':
        this.opts.journal.updateOrder(
          row.clientOid,
          { state: mustTransition(row.state, { type: 'place-rejected' }), lastError: res.error.summary() },
          `rejected: ${res.error.category}`,
          now,
        );
        this.emit(out, { strategyId, surface, symbol, clientOid, atMs: now, type: 'rejected', code: res.error.code, reason: res.error.message });
        return;
      case 'unknown':
        this.opts.journal.updateOrder(
          row.clientOid,
          { state: mustTransition(row.state, { type: 'place-unanswered' }), lastError: res.error.summary() },
          `unknown: ${res.error.category}`,
          now,
        );
        this.emit(out, { strategyId, surface, symbol, clientOid, atMs: now, type: 'unknown', reason: res.error.message });
        this.logger.warn(
          { clientOid: row.clientOid, symbol: row.symbol, reason: res.error.message },
          'order outcome unknown: resolving by query, not re-sending',
        );
        return;
    }
  }

  private async placeTrigger(intent: Extract<Intent, { kind: 'place-trigger' }>, intentId: number, out: ExecutionEvent[]): Promise<void> {
    if (this.fencedBy) {
      this.denyAll(out, intent.kind, this.denials(intent, 'futures', intent.symbol, [{ reason: 'fenced', detail: this.fencedBy }]));
      return;
    }
    const denials = this.opts.risk.checkTrigger(intent, this.riskContext());
    if (denials.length > 0) {
      this.denyAll(out, intent.kind, this.denials(intent, 'futures', intent.symbol, denials));
      return;
    }
    const spec: OrderSpec = {
      side: futuresSide(intent.positionSide, intent.reduceOnly),
      kind: intent.executePrice ? 'limit' : 'market',
      timeInForce: 'gtc',
      ...(intent.executePrice ? { price: intent.executePrice } : {}),
      size: intent.size,
      positionSide: intent.positionSide,
      reduceOnly: intent.reduceOnly,
    };
    const [row] = this.newRows(intent, intentId, 'futures', intent.symbol, [spec], intent.triggerPrice);
    await this.sendOne(row!, out, (clientOid) =>
      this.opts.client.placeTrigger({
        symbol: intent.symbol,
        clientOid,
        positionSide: intent.positionSide,
        reduceOnly: intent.reduceOnly,
        size: intent.size,
        triggerPrice: intent.triggerPrice,
        ...(intent.executePrice ? { executePrice: intent.executePrice } : {}),
      }),
    );
  }

  /** One order alone (a trigger, a position stop): written down, sent, its answer taken; returns the answer. */
  private async sendOne(row: JournalOrder, out: ExecutionEvent[], send: (clientOid: string) => Promise<ItemResult>): Promise<ItemResult> {
    this.opts.journal.insertOrders([row]);
    this.hooks.at('after-journal');
    const res = await send(row.clientOid);
    this.hooks.at('after-send');
    this.applyPlaceResult(row, res, out);
    this.opts.risk.recordSent(reachedVenue(res) ? 1 : 0, this.opts.clock.now());
    return res;
  }

  /**
   * Sends the cancels, per symbol and in batches of the venue's limit. By venue id where the strategy named it or
   * this process can trust it (the venue answers per id, exactly); by client id otherwise: an order whose placing
   * is unanswered has no venue id but may rest all the same, and a venue that was replaced numbers its orders
   * from 1 again, while our client ids are ours alone. A row the journal holds as final is cancelled too when
   * asked for: the journal may have concluded too early, the venue decides.
   */
  private async cancelRows(rows: JournalOrder[], out: ExecutionEvent[], by: 'named' | 'trusted'): Promise<void> {
    const groups = new Map<string, JournalOrder[]>();
    for (const r of rows) {
      if (r.isTrigger) continue;
      const key = `${r.surface}|${r.symbol}|${(by === 'named' ? r.orderId : this.trustedId(r)) ? 'id' : 'cid'}`;
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    for (const [key, group] of groups) {
      const [surface, symbol, by] = key.split('|') as [Surface, string, 'id' | 'cid'];
      const max = ENDPOINTS[surface === 'spot' ? 'S4' : 'F7'].maxBatch!;
      for (const batch of chunks(group, max)) {
        const now = this.opts.clock.now();
        for (const r of batch) this.requestCancel(r, now);
        const target: CancelTarget = by === 'id' ? { orderIds: batch.map((r) => r.orderId!) } : { clientOids: batch.map((r) => r.clientOid) };
        const results = await this.opts.client.cancelOrders(surface, symbol, target);
        this.hooks.at('during-cancel');
        results.forEach((res, i) => this.applyCancelResult(batch[i]!, res, out));
        await this.fillsBeforeCancel(
          batch.flatMap((r, i) => {
            const res = results[i];
            const orderId = r.orderId ?? res?.orderId;
            return res?.outcome === 'accepted' && orderId ? [{ row: r, orderId }] : [];
          }),
          out,
        );
      }
    }
  }

  /**
   * A canceled order is final and no longer looked up: fills it got just before the cancel are read now (its fills,
   * one read each: a lookup of the order itself may not show it yet, while the venue's reads lag behind its writes),
   * so they reach the journal and the strategy. A read that fails is noted on the order.
   */
  private async fillsBeforeCancel(done: Array<{ row: JournalOrder; orderId: string }>, out: ExecutionEvent[]): Promise<void> {
    for (const { row: before, orderId } of done) {
      let fills: Fill[];
      try {
        // Only this order's (the venue's filter taken on trust nowhere).
        fills = (await this.opts.client.fills(before.surface, before.symbol, orderId)).filter((f) => f.orderId === orderId);
      } catch (err) {
        const why = err instanceof ExchangeError ? err.summary() : String(err);
        this.opts.journal.updateOrder(before.clientOid, { lastError: why }, 'fills before the cancel not read', this.opts.clock.now());
        continue;
      }
      // The row as it is now: a reconciliation may have read the fills meanwhile. Fills only ever add.
      const r = this.opts.journal.order(before.clientOid) ?? before;
      const filled = fills.reduce((s, f) => s.add(f.size), Decimal.ZERO);
      if (!filled.gt(Decimal.from(r.filledSize))) continue;
      const now = this.opts.clock.now();
      recordFills(this.opts.journal, r, orderId, fills);
      const fee = fills.reduce((s, f) => s.add(f.fee), Decimal.ZERO);
      const avgPrice = fills.reduce((s, f) => s.add(f.amount), Decimal.ZERO).div(filled, 12);
      this.opts.journal.updateOrder(
        r.clientOid,
        { filledSize: filled.toString(), avgPrice: avgPrice.toString(), fee: fee.toString() },
        'filled before the cancel',
        now,
      );
      this.emit(out, {
        strategyId: r.strategyId,
        surface: r.surface,
        symbol: r.symbol,
        clientOid: r.clientOid,
        atMs: now,
        type: 'partially-filled',
        orderId,
        filledSize: filled,
        avgPrice,
        ...fillSideOf(r),
      });
    }
  }

  /** Marks an order canceling before its cancel is sent; one not known to be placed, or final, stays as it is. */
  private requestCancel(row: JournalOrder, now: number): void {
    const next = transition(row.state, { type: 'cancel-requested' });
    if (next.ok) this.opts.journal.updateOrder(row.clientOid, { state: next.to }, 'cancel requested', now);
  }

  /** `row` is the order as it was before its cancel was requested. */
  private applyCancelResult(row: JournalOrder, res: ItemResult, out: ExecutionEvent[]): void {
    const now = this.opts.clock.now();
    if (res.outcome === 'accepted') {
      const final = FINAL_STATES.has(row.state);
      const orderId = row.orderId ?? res.orderId ?? '';
      const state = mustTransition(row.state, { type: 'cancel-accepted' });
      this.opts.journal.updateOrder(
        row.clientOid,
        { state, ...(orderId ? { orderId } : {}) },
        final ? `canceled at the venue, although the journal held it ${row.state}` : 'canceled',
        now,
      );
      if (final)
        this.logger.warn({ clientOid: row.clientOid, orderId, was: row.state }, 'an order the journal held as final was resting at the venue: canceled');
      this.emit(out, { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now, type: 'canceled', orderId });
      return;
    }
    // Refused by the venue (e.g. rate limit): the order is as it was. Not found or no answer: it may have filled
    // or been canceled already; the tracker finds out by query.
    const refused = res.outcome === 'rejected' && res.error.category !== 'not-found';
    const event: OrderEvent = refused ? { type: 'cancel-refused' } : { type: 'cancel-unconfirmed' };
    const next = transition(row.state, event);
    // A final row stays final; an unanswered order stays as it was: the tracker settles both by query.
    if (!next.ok) {
      this.opts.journal.updateOrder(row.clientOid, { lastError: res.error.summary() }, `cancel not confirmed: ${res.error.category}`, now);
      return;
    }
    this.opts.journal.updateOrder(
      row.clientOid,
      { state: next.to, lastError: res.error.summary() },
      `${refused ? 'cancel refused' : 'cancel outcome to resolve'}: ${res.error.category}`,
      now,
    );
  }

  private async cancelTriggerRow(row: JournalOrder, out: ExecutionEvent[]): Promise<ItemResult | undefined> {
    if (!row.orderId) return undefined;
    this.requestCancel(row, this.opts.clock.now());
    const res = await this.opts.client.cancelTrigger(row.symbol, row.orderId);
    this.hooks.at('during-cancel');
    this.applyCancelResult(row, res, out);
    return res;
  }
}
