// The pre-trade risk gate: every order of an intent is checked before anything is sent; nothing is clamped.
// Trading states: active, reducing (only orders that shrink exposure), halted (cancels only). The drawdown
// kill switch and the order-rate breaker latch `halted` in the journal: it survives restarts until an
// operator resets it; a reset made by another process (`sextant risk reset`) reaches a running gate too.
// Every change of the state in force is told on tradingStates$.
import { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent, TradingState } from '../domain/events.js';
import { malformedOrder, malformedPlace, malformedTrigger, reducesExposure, type Intent, type OrderSpec } from '../domain/intent.js';
import type { Instrument } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { ReferencePrice } from '../domain/price-sanity.js';
import type { Journal } from '../journal/journal.js';
import type { TimeSource } from '../util/clock.js';

export interface RiskLimits {
  maxNotionalPerOrder: Decimal;
  maxNotionalPerSymbol: Decimal;
  maxOpenOrdersPerSymbol: number;
  maxOpenOrdersPerStrategy: number;
  /** Percent around the reference price; the tighter of this and the instrument's own limit ratios applies. */
  priceBandPct: Decimal;
  /** A reference price older than this stops new orders. */
  staleAfterMs: number;
  /** Orders per minute before the breaker trips (and latches halted). */
  maxOrdersPerMinute: number;
  /** Drawdown from the equity peak, in percent, that trips the kill switch. */
  maxDrawdownPct: Decimal;
  /** Orders one place intent may carry; a larger intent is refused whole, with one denial. */
  maxOrdersPerIntent: number;
  /**
   * A price further than this percent from the previous accepted one, or from the ticker's own bid/ask, is not
   * trusted until confirmed (domain/price-sanity.ts): it prices no order and values no equity.
   */
  outlierPct: Decimal;
}

export interface RiskContext {
  now: number;
  instrument(symbol: string): Instrument | undefined;
  /** The latest trustworthy price of a symbol and when it was seen; undefined when there is none. */
  reference(symbol: string): ReferencePrice | undefined;
  /** Open orders (ours, not final) of a symbol and of a strategy, and their notional on a symbol. */
  openCount(symbol: string): number;
  openCountByStrategy(strategyId: string): number;
  openNotional(symbol: string): Decimal;
}

export type DenialReason =
  | 'halted' | 'reducing' | 'fenced' | 'unknown-symbol' | 'no-reference-price' | 'stale-price' | 'off-tick' | 'off-step'
  | 'below-min-size' | 'above-max-size' | 'price-band' | 'max-notional-order' | 'max-notional-symbol'
  | 'max-open-orders-symbol' | 'max-open-orders-strategy' | 'order-rate' | 'missing-price' | 'side-mismatch'
  | 'malformed-order' | 'too-many-orders' | 'non-positive-price' | 'non-positive-size';

export interface Denial {
  /** The order denied; null when the denial is of the whole intent (too many orders, a malformed intent). */
  order: OrderSpec | null;
  reason: DenialReason;
  detail: string;
}

export const LATCH_DRAWDOWN = 'kill-switch:drawdown';
export const LATCH_ORDER_RATE = 'kill-switch:order-rate';
const LATCHES = [LATCH_DRAWDOWN, LATCH_ORDER_RATE];
const HUNDRED = Decimal.fromInt(100);
const RATE_WINDOW_MS = 60_000;

type Problem = { reason: DenialReason; detail: string };

export type TradingStateChanged = Extract<ExecutionEvent, { type: 'trading-state' }>;

export class RiskGate {
  /**
   * The state in force changed: a kill switch tripped here, a latch was found set (left by an earlier run, or set
   * by another process) or found cleared (`sextant risk reset`, maybe from another process), or the operator's
   * setting changed. A latch set or cleared elsewhere is noticed at the next state() or equity reading.
   */
  readonly tradingStates$ = new Subject<TradingStateChanged>();
  private manual: TradingState = 'active';
  /** The latest time the gate was given: the time of a change noticed without one (no clock given). */
  private lastSeenMs = 0;
  /**
   * The order-rate breaker counts orders that reached the venue: accepted, unknown (it may have them) or refused
   * by the venue for what they are, as the executor reports them with recordSent after each send. Orders denied
   * here, never sent (fenced, a crash) or turned away whole (429) do not count. Kept as (time, count), oldest first.
   */
  private readonly sentWindow: Array<{ atMs: number; count: number }> = [];
  private sentInWindow = 0;
  private peakEquity: Decimal | null = null;
  /** Latches this gate has seen set: one found gone was reset by an operator, maybe from another process. */
  private readonly seenLatches = new Set<string>();

  constructor(
    private readonly limits: RiskLimits,
    private readonly journal: Journal,
    /** Times the changes told on tradingStates$; without it, the latest time the gate was given. */
    private readonly clock?: TimeSource,
  ) {}

  /** The state in force: a latched kill switch wins over the operator's setting. */
  state(): TradingState {
    return this.syncLatches() ? 'halted' : this.manual;
  }

  /**
   * Reads the latches; true when one is set. A latch seen before and now gone was reset by an operator (the CLI
   * clears the journal's row from another process): what it guarded starts afresh here too, or the stale
   * equity peak would latch the drawdown switch again at once. A latch found set or found cleared is told.
   */
  private syncLatches(): boolean {
    let latched = false;
    // Changes are rare: nothing is allocated on the usual pass (a backtest checks the latches on every intent).
    let found: string[] | undefined;
    let cleared: string[] | undefined;
    for (const l of LATCHES) {
      const x = this.journal.latch(l);
      if (x) {
        if (!this.seenLatches.has(l)) (found ??= []).push(`${l}: ${x.reason}`);
        this.seenLatches.add(l);
        latched = true;
      } else if (this.seenLatches.delete(l)) {
        this.afterReset(l);
        (cleared ??= []).push(l);
      }
    }
    if (found || cleared) {
      const now = this.clock?.now() ?? this.lastSeenMs;
      for (const reason of found ?? []) this.told(now, 'halted', reason);
      for (const l of cleared ?? []) this.told(now, latched ? 'halted' : this.manual, `${l} reset`);
    }
    return latched;
  }

  private told(atMs: number, state: TradingState, reason: string): void {
    this.tradingStates$.next({ type: 'trading-state', atMs, state, reason });
  }

  private afterReset(latch: string): void {
    if (latch === LATCH_DRAWDOWN) this.peakEquity = null; // the next sane reading is the peak
    if (latch === LATCH_ORDER_RATE) {
      this.sentWindow.length = 0;
      this.sentInWindow = 0;
    }
  }

  private setLatch(latch: string, reason: string, now: number): void {
    this.journal.setLatch(latch, reason, now);
    const tripped = !this.seenLatches.has(latch);
    this.seenLatches.add(latch);
    if (tripped) this.told(now, 'halted', `${latch}: ${reason}`);
  }

  latchReason(): string | undefined {
    for (const l of LATCHES) {
      const x = this.journal.latch(l);
      if (x) return `${l}: ${x.reason}`;
    }
    return undefined;
  }

  setState(state: TradingState): void {
    if (state === this.manual) return;
    this.manual = state;
    const latched = this.syncLatches();
    this.told(this.clock?.now() ?? this.lastSeenMs, latched ? 'halted' : state, `operator set ${state}`);
  }

  /** Operator action: clears the kill-switch latches (a gate running in another process notices). */
  reset(): void {
    const cleared = LATCHES.filter((l) => this.seenLatches.has(l) || this.journal.latch(l));
    for (const l of LATCHES) {
      this.journal.clearLatch(l);
      this.seenLatches.delete(l);
      this.afterReset(l);
    }
    const now = this.clock?.now() ?? this.lastSeenMs;
    for (const l of cleared) this.told(now, this.manual, `${l} reset`);
  }

  /** Reports orders that reached the venue (accepted, or outcome unknown) at `atMs`: what the order-rate breaker counts. */
  recordSent(count: number, atMs: number): void {
    this.lastSeenMs = atMs;
    if (count <= 0) return;
    this.sentWindow.push({ atMs, count });
    this.sentInWindow += count;
  }

  /** Feeds total equity; trips the drawdown kill switch when it falls far enough below its peak. */
  onEquity(equity: Decimal, now: number): boolean {
    this.lastSeenMs = now;
    this.syncLatches();
    if (!this.peakEquity || equity.gte(this.peakEquity)) {
      this.peakEquity = equity;
      return false; // at the peak: no drawdown
    }
    if (this.peakEquity.isZero()) return false;
    const dd = this.peakEquity.sub(equity).mul(HUNDRED).div(this.peakEquity, 8);
    if (dd.gte(this.limits.maxDrawdownPct)) {
      this.setLatch(LATCH_DRAWDOWN, `drawdown ${dd.toString()} % from peak ${this.peakEquity.toString()}`, now);
      return true;
    }
    return false;
  }

  /**
   * Checks the orders of a place intent. Returns those allowed and a denial for each of the others; an intent
   * that is malformed as a whole or carries more than maxOrdersPerIntent orders gets one denial (order null).
   * Nothing is recorded: the executor reports what it sent with recordSent.
   */
  checkPlace(intent: Extract<Intent, { kind: 'place' }>, ctx: RiskContext): { allowed: OrderSpec[]; denials: Denial[] } {
    const whole = (reason: DenialReason, detail: string) => ({ allowed: [], denials: [{ order: null, reason, detail }] });
    const shape = malformedPlace(intent);
    if (shape) return whole('malformed-order', shape);
    if (intent.orders.length > this.limits.maxOrdersPerIntent) {
      return whole('too-many-orders', `${intent.orders.length} orders in one intent (limit ${this.limits.maxOrdersPerIntent})`);
    }
    const denials: Denial[] = [];
    const allowed: OrderSpec[] = [];
    this.lastSeenMs = ctx.now;
    const state = this.state();
    const inst = ctx.instrument(intent.symbol);
    const ref = ctx.reference(intent.symbol);
    const refProblem = this.referenceProblem(intent.symbol, ref, ctx.now);
    let open = ctx.openCount(intent.symbol);
    let openStrategy = ctx.openCountByStrategy(intent.strategyId);
    let notional = ctx.openNotional(intent.symbol);
    this.expire(ctx.now);
    for (const o of intent.orders) {
      const deny = (reason: DenialReason, detail: string) => denials.push({ order: o, reason, detail });
      const malformed = malformedOrder(o);
      if (malformed) {
        deny('malformed-order', malformed);
        continue;
      }
      if (state === 'halted') {
        deny('halted', this.latchReason() ?? 'trading halted');
        continue;
      }
      if (state === 'reducing' && !reducesExposure(o, intent.surface)) {
        deny('reducing', 'only orders that reduce exposure are allowed');
        continue;
      }
      if (!inst) {
        deny('unknown-symbol', intent.symbol);
        continue;
      }
      if (inst.surface !== intent.surface) {
        deny('malformed-order', `${intent.symbol} is a ${inst.surface} symbol, not ${intent.surface}`);
        continue;
      }
      if (refProblem || !ref) {
        deny(refProblem?.reason ?? 'no-reference-price', refProblem?.detail ?? intent.symbol);
        continue;
      }
      if (intent.surface === 'futures') {
        // Opening a long and closing a short buy; opening a short and closing a long sell.
        const ps = o.positionSide ?? (o.side === 'buy' ? 'long' : 'short');
        if (o.side !== futuresSide(ps, o.reduceOnly ?? false)) {
          deny('side-mismatch', `${o.side} cannot ${o.reduceOnly ? 'close' : 'open'} a ${ps} position`);
          continue;
        }
      }
      const r = this.checkOrder(o, inst, ref.price);
      if (r) {
        deny(r.reason, r.detail);
        continue;
      }
      // A market order's price, if any, is not what it trades at (the venue ignores it): the reference is.
      const value = (o.kind === 'limit' ? o.price! : ref.price).mul(o.size);
      if (value.gt(this.limits.maxNotionalPerOrder)) {
        deny('max-notional-order', `${value.toString()} > ${this.limits.maxNotionalPerOrder.toString()}`);
        continue;
      }
      if (!reducesExposure(o, intent.surface) && notional.add(value).gt(this.limits.maxNotionalPerSymbol)) {
        deny('max-notional-symbol', `${notional.add(value).toString()} > ${this.limits.maxNotionalPerSymbol.toString()}`);
        continue;
      }
      if (o.kind === 'limit' && open + 1 > this.limits.maxOpenOrdersPerSymbol) {
        deny('max-open-orders-symbol', `${open + 1} > ${this.limits.maxOpenOrdersPerSymbol}`);
        continue;
      }
      if (o.kind === 'limit' && openStrategy + 1 > this.limits.maxOpenOrdersPerStrategy) {
        deny('max-open-orders-strategy', `${openStrategy + 1} > ${this.limits.maxOpenOrdersPerStrategy}`);
        continue;
      }
      // The orders sent in the last minute, those allowed before this one in this intent (they will be sent), and this one.
      if (this.sentInWindow + allowed.length + 1 > this.limits.maxOrdersPerMinute) {
        this.setLatch(LATCH_ORDER_RATE, `more than ${this.limits.maxOrdersPerMinute} orders in a minute`, ctx.now);
        deny('order-rate', `more than ${this.limits.maxOrdersPerMinute} orders in a minute: halted`);
        continue;
      }
      if (o.kind === 'limit') {
        open++;
        openStrategy++;
      }
      if (!reducesExposure(o, intent.surface)) notional = notional.add(value);
      allowed.push(o);
    }
    return { allowed, denials };
  }

  /** A trigger order: the same checks, at its execution (or trigger) price; both prices must be positive. */
  checkTrigger(intent: Extract<Intent, { kind: 'place-trigger' }>, ctx: RiskContext): Denial[] {
    const shape = malformedTrigger(intent);
    if (shape) return [{ order: null, reason: 'malformed-order', detail: shape }];
    if (!intent.triggerPrice.gt(Decimal.ZERO)) return [{ order: null, reason: 'non-positive-price', detail: `trigger price ${intent.triggerPrice.toString()}` }];
    const spec: OrderSpec = {
      side: futuresSide(intent.positionSide, intent.reduceOnly),
      kind: 'limit',
      timeInForce: 'gtc',
      price: intent.executePrice ?? intent.triggerPrice,
      size: intent.size,
      positionSide: intent.positionSide,
      reduceOnly: intent.reduceOnly,
    };
    return this.checkPlace({ kind: 'place', strategyId: intent.strategyId, surface: 'futures', symbol: intent.symbol, orders: [spec] }, ctx).denials;
  }

  /** Why the reference price cannot price an order: none, not positive, or stale by the poll or by the venue's own timestamp. */
  private referenceProblem(symbol: string, ref: ReferencePrice | undefined, now: number): Problem | undefined {
    if (!ref) return { reason: 'no-reference-price', detail: `${symbol}: no trusted price` };
    if (!ref.price.gt(Decimal.ZERO)) return { reason: 'no-reference-price', detail: `${symbol}: reference price ${ref.price.toString()} is not positive` };
    const limit = this.limits.staleAfterMs;
    if (now - ref.atMs > limit) return { reason: 'stale-price', detail: `reference price is ${now - ref.atMs} ms old (limit ${limit} ms)` };
    if (ref.sourceAdvancedAtMs !== undefined && now - ref.sourceAdvancedAtMs > limit) {
      return { reason: 'stale-price', detail: `the venue's own timestamp has not advanced for ${now - ref.sourceAdvancedAtMs} ms (limit ${limit} ms)` };
    }
    return undefined;
  }

  private checkOrder(o: OrderSpec, inst: Instrument, ref: Decimal): Problem | undefined {
    if (!o.size.gt(Decimal.ZERO)) return { reason: 'non-positive-size', detail: `size ${o.size.toString()}` };
    if (o.price != null && !o.price.gt(Decimal.ZERO)) return { reason: 'non-positive-price', detail: `price ${o.price.toString()}` };
    if (!o.size.isMultipleOf(inst.stepSize)) return { reason: 'off-step', detail: `size ${o.size.toString()} is not a multiple of ${inst.stepSize.toString()}` };
    if (o.size.lt(inst.minSize)) return { reason: 'below-min-size', detail: `${o.size.toString()} < ${inst.minSize.toString()}` };
    if (inst.maxSize && o.size.gt(inst.maxSize)) return { reason: 'above-max-size', detail: `${o.size.toString()} > ${inst.maxSize.toString()}` };
    if (o.kind === 'market') return undefined;
    if (!o.price) return { reason: 'missing-price', detail: 'a limit order needs a price' };
    if (!o.price.isMultipleOf(inst.tickSize)) return { reason: 'off-tick', detail: `price ${o.price.toString()} is not a multiple of ${inst.tickSize.toString()}` };
    // The tighter of the configured band and the instrument's limit ratio, around the reference price.
    const venue = (o.side === 'buy' ? inst.buyLimitPriceRatio : inst.sellLimitPriceRatio)?.mul(HUNDRED);
    const pct = venue && venue.lt(this.limits.priceBandPct) ? venue : this.limits.priceBandPct;
    const dist = o.price.sub(ref).abs().mul(HUNDRED).div(ref, 8);
    if (dist.gt(pct)) return { reason: 'price-band', detail: `price ${o.price.toString()} is ${dist.toString()} % from ${ref.toString()} (band ${pct.toString()} %)` };
    return undefined;
  }

  private expire(now: number): void {
    while (this.sentWindow.length > 0 && now - this.sentWindow[0]!.atMs >= RATE_WINDOW_MS) this.sentInWindow -= this.sentWindow.shift()!.count;
  }
}
