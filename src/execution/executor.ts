// The executor: turns intents into exchange calls that never duplicate or lose an order. Every order gets a
// client id from the journal and is written down before it is sent; answers are per item; an unknown outcome
// stays unknown until the order tracker resolves it by query: it is never re-sent.
import { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent, OrderSpec } from '../domain/intent.js';
import type { Instrument, Surface } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderRequest } from '../exchange/client.js';
import { ENDPOINTS } from '../exchange/endpoints.js';
import { FINAL_STATES, type Journal, type JournalOrder, type OrderState } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { NO_KILL, type KillHooks } from './kill-points.js';
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
  hooks?: KillHooks;
}

function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

export class Executor {
  readonly events$ = new Subject<ExecutionEvent>();
  private fencedBy: string | null = 'not reconciled yet';
  private readonly hooks: KillHooks;
  private readonly logger: Logger;

  constructor(private readonly o: ExecutorOptions) {
    this.hooks = o.hooks ?? NO_KILL;
    this.logger = o.logger.child({ component: 'executor' });
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

  private emit(out: ExecutionEvent[], e: ExecutionEvent): void {
    out.push(e);
    this.events$.next(e);
  }

  private riskContext(): RiskContext {
    const active = this.o.journal.activeOrders().filter((r) => r.kind === 'limit');
    return {
      now: this.o.clock.now(),
      instrument: (s) => this.o.instruments.get(s),
      reference: (s) => this.o.reference(s),
      openCount: (s) => active.filter((r) => r.symbol === s).length,
      openCountByStrategy: (id) => active.filter((r) => r.strategyId === id).length,
      openNotional: (s) =>
        active
          .filter((r) => r.symbol === s && !(r.surface === 'futures' ? r.reduceOnly : r.side === 'sell'))
          .reduce((a, r) => a.add(Decimal.from(r.price ?? '0').mul(Decimal.from(r.size).sub(Decimal.from(r.filledSize)))), Decimal.ZERO),
    };
  }

  async submit(intent: Intent): Promise<ExecutionEvent[]> {
    const out: ExecutionEvent[] = [];
    const now = this.o.clock.now();
    this.hooks.at('before-journal');
    const intentId = this.o.journal.recordIntent(intent.strategyId, intent.kind, JSON.stringify(intent), now);
    switch (intent.kind) {
      case 'place':
        await this.place(intent, intentId, out);
        break;
      case 'place-trigger':
        await this.placeTrigger(intent, intentId, out);
        break;
      case 'cancel': {
        const rows = intent.orderIds
          ? intent.orderIds.map((id) => this.o.journal.orderByOrderId(id)).filter((r): r is JournalOrder => !!r)
          : (intent.clientOids ?? []).map((c) => this.o.journal.order(c)).filter((r): r is JournalOrder => !!r);
        await this.cancelRows(rows, out);
        break;
      }
      case 'cancel-all': {
        // Our own orders only: orders this bot did not create are left alone.
        const rows = this.o.journal.activeOrders().filter((r) => r.symbol === intent.symbol && r.surface === intent.surface && !r.isTrigger && (r.state === 'open' || r.state === 'unknown'));
        await this.cancelRows(rows, out);
        break;
      }
      case 'cancel-trigger': {
        const row = this.o.journal.orderByOrderId(intent.orderId);
        if (row) await this.cancelTriggerRow(row, out);
        break;
      }
    }
    return out;
  }

  private deny(out: ExecutionEvent[], intent: Intent, surface: Surface, symbol: string, reason: string, detail: string): void {
    const now = this.o.clock.now();
    this.o.journal.recordRiskDecision(intent.strategyId, intent.kind, reason, detail, now);
    this.emit(out, { type: 'denied', strategyId: intent.strategyId, surface, symbol, atMs: now, reason, detail });
  }

  private newRows(intent: { strategyId: string }, intentId: number, surface: Surface, symbol: string, specs: OrderSpec[], trigger?: Decimal): JournalOrder[] {
    const oids = this.o.journal.nextClientOids(intent.strategyId, specs.length);
    const now = this.o.clock.now();
    return specs.map((s, i) => ({
      clientOid: oids[i]!, strategyId: intent.strategyId, intentId, surface, symbol, side: s.side, kind: s.kind, timeInForce: s.timeInForce,
      price: s.price ? s.price.toString() : null, size: s.size.toString(), positionSide: surface === 'futures' ? (s.positionSide ?? (s.side === 'buy' ? 'long' : 'short')) : null,
      reduceOnly: s.reduceOnly ?? false, isTrigger: trigger !== undefined, triggerPrice: trigger ? trigger.toString() : null, orderId: null,
      state: 'sending', filledSize: '0', avgPrice: null, fee: null, createdAt: now, updatedAt: now, absentChecks: 0, lastError: null,
    }));
  }

  private async place(intent: Extract<Intent, { kind: 'place' }>, intentId: number, out: ExecutionEvent[]): Promise<void> {
    if (this.fencedBy) {
      for (const _ of intent.orders) this.deny(out, intent, intent.surface, intent.symbol, 'fenced', this.fencedBy);
      return;
    }
    const { allowed, denials } = this.o.risk.checkPlace(intent, this.riskContext());
    for (const d of denials) this.deny(out, intent, intent.surface, intent.symbol, d.reason, d.detail);
    if (allowed.length === 0) return;
    const rows = this.newRows(intent, intentId, intent.surface, intent.symbol, allowed);
    this.o.journal.insertOrders(rows);
    this.hooks.at('after-journal');
    const max = ENDPOINTS[intent.surface === 'spot' ? 'S6' : 'F6'].maxBatch!;
    for (const batch of chunks(rows, max)) {
      const reqs: OrderRequest[] = batch.map((r) => ({ ...allowed[rows.indexOf(r)]!, clientOid: r.clientOid }));
      const results = await this.o.client.placeOrders(intent.surface, intent.symbol, reqs);
      this.hooks.at('after-send');
      results.forEach((res, i) => {
        this.applyPlaceResult(batch[i]!, res, out);
        if (i === 0) this.hooks.at('after-journal-update');
      });
    }
  }

  private applyPlaceResult(row: JournalOrder, res: ItemResult, out: ExecutionEvent[], acceptedState: OrderState = 'open'): void {
    const now = this.o.clock.now();
    const base = { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now };
    switch (res.outcome) {
      case 'accepted':
        this.o.journal.updateOrder(row.clientOid, { state: acceptedState, orderId: res.orderId }, 'accepted', now);
        this.emit(out, { ...base, type: 'accepted', orderId: res.orderId, trigger: row.isTrigger });
        return;
      case 'rejected':
        this.o.journal.updateOrder(row.clientOid, { state: 'rejected', lastError: res.error.summary() }, `rejected: ${res.error.category}`, now);
        this.emit(out, { ...base, type: 'rejected', code: res.error.code, reason: res.error.message });
        return;
      case 'unknown':
        this.o.journal.updateOrder(row.clientOid, { state: 'unknown', lastError: res.error.summary() }, `unknown: ${res.error.category}`, now);
        this.emit(out, { ...base, type: 'unknown', reason: res.error.message });
        this.logger.warn({ clientOid: row.clientOid, symbol: row.symbol, reason: res.error.message }, 'order outcome unknown: resolving by query, not re-sending');
        return;
    }
  }

  private async placeTrigger(intent: Extract<Intent, { kind: 'place-trigger' }>, intentId: number, out: ExecutionEvent[]): Promise<void> {
    if (this.fencedBy) {
      this.deny(out, intent, 'futures', intent.symbol, 'fenced', this.fencedBy);
      return;
    }
    const denials = this.o.risk.checkTrigger(intent, this.riskContext());
    if (denials.length > 0) {
      for (const d of denials) this.deny(out, intent, 'futures', intent.symbol, d.reason, d.detail);
      return;
    }
    const spec: OrderSpec = {
      side: futuresSide(intent.positionSide, intent.reduceOnly), kind: intent.executePrice ? 'limit' : 'market', timeInForce: 'gtc',
      ...(intent.executePrice ? { price: intent.executePrice } : {}), size: intent.size, positionSide: intent.positionSide, reduceOnly: intent.reduceOnly,
    };
    const [row] = this.newRows(intent, intentId, 'futures', intent.symbol, [spec], intent.triggerPrice);
    this.o.journal.insertOrders([row!]);
    this.hooks.at('after-journal');
    const res = await this.o.client.placeTrigger({
      symbol: intent.symbol, clientOid: row!.clientOid, positionSide: intent.positionSide, reduceOnly: intent.reduceOnly, size: intent.size,
      triggerPrice: intent.triggerPrice, ...(intent.executePrice ? { executePrice: intent.executePrice } : {}),
    });
    this.hooks.at('after-send');
    this.applyPlaceResult(row!, res, out, 'untriggered');
  }

  private async cancelRows(rows: JournalOrder[], out: ExecutionEvent[]): Promise<void> {
    const live = rows.filter((r) => !FINAL_STATES.has(r.state) && r.orderId);
    const groups = new Map<string, JournalOrder[]>();
    for (const r of live) groups.set(`${r.surface}|${r.symbol}`, [...(groups.get(`${r.surface}|${r.symbol}`) ?? []), r]);
    for (const [key, group] of groups) {
      const [surface, symbol] = key.split('|') as [Surface, string];
      const max = ENDPOINTS[surface === 'spot' ? 'S4' : 'F7'].maxBatch!;
      for (const batch of chunks(group, max)) {
        const now = this.o.clock.now();
        for (const r of batch) this.o.journal.updateOrder(r.clientOid, { state: 'canceling' }, 'cancel requested', now);
        const target: CancelTarget = { orderIds: batch.map((r) => r.orderId!) };
        const results = await this.o.client.cancelOrders(surface, symbol, target);
        this.hooks.at('during-cancel');
        results.forEach((res, i) => this.applyCancelResult(batch[i]!, res, out));
      }
    }
  }

  private applyCancelResult(row: JournalOrder, res: ItemResult, out: ExecutionEvent[]): void {
    const now = this.o.clock.now();
    if (res.outcome === 'accepted') {
      this.o.journal.updateOrder(row.clientOid, { state: 'canceled' }, 'canceled', now);
      this.emit(out, { strategyId: row.strategyId, surface: row.surface, symbol: row.symbol, clientOid: row.clientOid, atMs: now, type: 'canceled', orderId: row.orderId! });
      return;
    }
    if (res.outcome === 'rejected' && res.error.category !== 'not-found') {
      // The venue refused the cancel (e.g. rate limit): the order is as it was.
      this.o.journal.updateOrder(row.clientOid, { state: row.state === 'canceling' ? 'open' : row.state, lastError: res.error.summary() }, `cancel refused: ${res.error.category}`, now);
      return;
    }
    // Not found or no answer: it may have filled or been canceled already; the tracker finds out by query.
    this.o.journal.updateOrder(row.clientOid, { state: 'canceling', lastError: 'error' in res ? res.error.summary() : null }, `cancel outcome to resolve: ${'error' in res ? res.error.category : ''}`, now);
  }

  private async cancelTriggerRow(row: JournalOrder, out: ExecutionEvent[]): Promise<void> {
    if (FINAL_STATES.has(row.state) || !row.orderId) return;
    this.o.journal.updateOrder(row.clientOid, { state: 'canceling' }, 'cancel requested', this.o.clock.now());
    const res = await this.o.client.cancelTrigger(row.symbol, row.orderId);
    this.hooks.at('during-cancel');
    this.applyCancelResult(row, res, out);
  }
}
