// The pre-trade risk gate: every order of an intent is checked before anything is sent; nothing is clamped.
// Trading states: active, reducing (only orders that shrink exposure), halted (cancels only). The drawdown
// kill switch and the order-rate breaker latch `halted` in the journal: it survives restarts until an
// operator resets it.
import { Decimal } from '../domain/decimal.js';
import type { TradingState } from '../domain/events.js';
import { reducesExposure, type Intent, type OrderSpec } from '../domain/intent.js';
import type { Instrument } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { Journal } from '../journal/journal.js';

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
}

export interface RiskContext {
  now: number;
  instrument(symbol: string): Instrument | undefined;
  /** The latest trustworthy price of a symbol and when it was seen. */
  reference(symbol: string): { price: Decimal; atMs: number } | undefined;
  /** Open orders (ours, not final) of a symbol and of a strategy, and their notional on a symbol. */
  openCount(symbol: string): number;
  openCountByStrategy(strategyId: string): number;
  openNotional(symbol: string): Decimal;
}

export type DenialReason =
  | 'halted' | 'reducing' | 'fenced' | 'unknown-symbol' | 'no-reference-price' | 'stale-price' | 'off-tick' | 'off-step'
  | 'below-min-size' | 'above-max-size' | 'price-band' | 'max-notional-order' | 'max-notional-symbol'
  | 'max-open-orders-symbol' | 'max-open-orders-strategy' | 'order-rate' | 'missing-price' | 'side-mismatch';

export interface Denial {
  order: OrderSpec | null;
  reason: DenialReason;
  detail: string;
}

export const LATCH_DRAWDOWN = 'kill-switch:drawdown';
export const LATCH_ORDER_RATE = 'kill-switch:order-rate';
const LATCHES = [LATCH_DRAWDOWN, LATCH_ORDER_RATE];
const HUNDRED = Decimal.fromInt(100);

export class RiskGate {
  private manual: TradingState = 'active';
  private readonly sentAt: number[] = [];
  private peakEquity: Decimal | null = null;

  constructor(
    private readonly limits: RiskLimits,
    private readonly journal: Journal,
  ) {}

  /** The state in force: a latched kill switch wins over the operator's setting. */
  state(): TradingState {
    if (LATCHES.some((l) => this.journal.latch(l))) return 'halted';
    return this.manual;
  }

  latchReason(): string | undefined {
    for (const l of LATCHES) {
      const x = this.journal.latch(l);
      if (x) return `${l}: ${x.reason}`;
    }
    return undefined;
  }

  setState(state: TradingState): void {
    this.manual = state;
  }

  /** Operator action: clears the kill-switch latches. */
  reset(): void {
    for (const l of LATCHES) this.journal.clearLatch(l);
    this.sentAt.length = 0;
  }

  /** Feeds total equity; trips the drawdown kill switch when it falls far enough below its peak. */
  onEquity(equity: Decimal, now: number): boolean {
    if (!this.peakEquity || equity.gte(this.peakEquity)) {
      this.peakEquity = equity;
      return false; // at the peak: no drawdown
    }
    if (this.peakEquity.isZero()) return false;
    const dd = this.peakEquity.sub(equity).mul(HUNDRED).div(this.peakEquity, 8);
    if (dd.gte(this.limits.maxDrawdownPct)) {
      this.journal.setLatch(LATCH_DRAWDOWN, `drawdown ${dd.toString()} % from peak ${this.peakEquity.toString()}`, now);
      return true;
    }
    return false;
  }

  /** Checks the orders of a place intent. Returns those allowed and a denial for each of the others. */
  checkPlace(intent: Extract<Intent, { kind: 'place' }>, ctx: RiskContext): { allowed: OrderSpec[]; denials: Denial[] } {
    const denials: Denial[] = [];
    const allowed: OrderSpec[] = [];
    const state = this.state();
    const inst = ctx.instrument(intent.symbol);
    const ref = ctx.reference(intent.symbol);
    let open = ctx.openCount(intent.symbol);
    let openStrategy = ctx.openCountByStrategy(intent.strategyId);
    let notional = ctx.openNotional(intent.symbol);
    this.expire(ctx.now);
    for (const o of intent.orders) {
      const deny = (reason: DenialReason, detail: string) => denials.push({ order: o, reason, detail });
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
      if (!ref) {
        deny('no-reference-price', intent.symbol);
        continue;
      }
      if (ctx.now - ref.atMs > this.limits.staleAfterMs) {
        deny('stale-price', `reference price is ${ctx.now - ref.atMs} ms old (limit ${this.limits.staleAfterMs} ms)`);
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
      const value = (o.price ?? ref.price).mul(o.size);
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
      if (this.sentAt.length + 1 > this.limits.maxOrdersPerMinute) {
        this.journal.setLatch(LATCH_ORDER_RATE, `more than ${this.limits.maxOrdersPerMinute} orders in a minute`, ctx.now);
        deny('order-rate', `more than ${this.limits.maxOrdersPerMinute} orders in a minute: halted`);
        continue;
      }
      this.sentAt.push(ctx.now);
      if (o.kind === 'limit') {
        open++;
        openStrategy++;
      }
      if (!reducesExposure(o, intent.surface)) notional = notional.add(value);
      allowed.push(o);
    }
    return { allowed, denials };
  }

  /** A trigger order: the same checks, at its execution (or trigger) price. */
  checkTrigger(intent: Extract<Intent, { kind: 'place-trigger' }>, ctx: RiskContext): Denial[] {
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

  private checkOrder(o: OrderSpec, inst: Instrument, ref: Decimal): { reason: DenialReason; detail: string } | undefined {
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
    while (this.sentAt.length > 0 && now - this.sentAt[0]! >= 60_000) this.sentAt.shift();
  }
}
