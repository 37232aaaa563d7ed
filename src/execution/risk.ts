// The pre-trade risk gate: every order of an intent passes the rules (risk-rules.ts) before anything is sent;
// nothing is clamped. Trading states: active, reducing (only orders that shrink exposure), halted (cancels only).
// The state in force is the strictest of the latches (latches.ts: kill switches hold halted, reduce orders hold
// reducing; kept in the journal until an operator resets them, and seen across restarts and processes) and the
// operator's in-process setting. Every change of the state in force is told on tradingStates$.
import { Subject } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { TradingState, TradingStateChanged } from '../domain/events.js';
import { malformedProtect, malformedTrigger, reducesExposure, removesProtection, type Intent, type OrderSpec, type ProtectIntent } from '../domain/intent.js';
import type { Balance, Instrument, Position } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { ReferencePrice } from '../domain/price-sanity.js';
import type { Journal } from '../journal/journal.js';
import type { TimeSource } from '../util/clock.js';
import {
  LATCH_DRAWDOWN,
  LATCH_KILL_OPERATOR,
  LATCH_ORDER_RATE,
  LATCH_REDUCE_DRAWDOWN,
  LATCH_REDUCE_LIQUIDATION,
  LATCH_REDUCE_OPERATOR,
  LATCHES,
  strictest,
} from './latches.js';
import { closest, type LiquidationView } from './liquidation-watch.js';
import {
  firstProblem,
  INTENT_RULES,
  ORDER_RULES,
  orderValue,
  referenceProblem,
  type AccountView,
  type DenialReason,
  type OrderCheck,
  type PlaceIntent,
  type RiskLimits,
} from './risk-rules.js';

export { LATCH_DRAWDOWN, LATCH_KILL_OPERATOR, LATCH_ORDER_RATE, LATCH_REDUCE_DRAWDOWN, LATCH_REDUCE_LIQUIDATION, LATCH_REDUCE_OPERATOR } from './latches.js';
export type { AccountView, DenialReason, RiskLimits } from './risk-rules.js';
export type { TradingStateChanged } from '../domain/events.js';

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

export interface Denial {
  /** The order denied; null when the denial is of the whole intent (too many orders, a malformed intent). */
  order: OrderSpec | null;
  reason: DenialReason;
  detail: string;
}

/** What the positions and balances streams last said; a part left out is kept as it was. */
export interface AccountSnapshot {
  positions?: Position[];
  balances?: Balance[];
  atMs: number;
}

const RATE_WINDOW_MS = 60_000;

export class RiskGate {
  /**
   * The state in force changed: a latch was set here (a kill switch tripped, a reduce order), a latch was found
   * set (left by an earlier run, or set by another process) or found cleared (`sextant risk reset`, maybe from
   * another process), or the operator's setting changed. A latch set or cleared elsewhere is noticed at the next
   * state() or equity reading.
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
  private accountView: AccountView = { positions: [], balances: [], positionsAtMs: null, balancesAtMs: null, liquidation: null };
  /** Reads the futures positions' distance to liquidation as last updated (worked out when read); null before. */
  private liquidationRead: (() => LiquidationView) | null = null;

  constructor(
    private readonly limits: RiskLimits,
    private readonly journal: Journal,
    /** Times the changes told on tradingStates$; without it, the latest time the gate was given. */
    private readonly clock?: TimeSource,
  ) {}

  /** The state in force: the strictest of the latches and the operator's setting. */
  state(): TradingState {
    return strictest(this.syncLatches(), this.manual);
  }

  private nowMs(): number {
    return this.clock?.now() ?? this.lastSeenMs;
  }

  /**
   * Reads the latches; returns the state they hold. A latch seen before and now gone was reset by an operator
   * (the CLI clears the journal's row from another process): what it guarded starts afresh here too, or the stale
   * equity peak would latch the drawdown switch again at once. A latch found set or found cleared is told.
   */
  private syncLatches(): TradingState {
    let latched: TradingState = 'active';
    // Changes are rare: nothing is allocated on the usual pass (a backtest checks the latches on every intent).
    let found: string[] | undefined;
    let cleared: string[] | undefined;
    for (const { name, holds } of LATCHES) {
      const held = this.journal.latch(name);
      if (held) {
        if (!this.seenLatches.has(name)) (found ??= []).push(`${name}: ${held.reason}`);
        this.seenLatches.add(name);
        latched = strictest(latched, holds);
      } else if (this.seenLatches.delete(name)) {
        this.afterReset(name);
        (cleared ??= []).push(name);
      }
    }
    if (found || cleared) {
      const now = this.nowMs();
      const inForce = strictest(latched, this.manual);
      for (const reason of found ?? []) this.told(now, inForce, reason);
      for (const name of cleared ?? []) this.told(now, inForce, `${name} reset`);
    }
    return latched;
  }

  /** The state the latches this gate has seen hold (no journal read). */
  private seenState(): TradingState {
    let latched: TradingState = 'active';
    for (const { name, holds } of LATCHES) if (this.seenLatches.has(name)) latched = strictest(latched, holds);
    return latched;
  }

  private told(atMs: number, state: TradingState, reason: string): void {
    this.tradingStates$.next({ type: 'trading-state', atMs, state, reason });
  }

  private afterReset(latch: string): void {
    if (latch === LATCH_DRAWDOWN || latch === LATCH_REDUCE_DRAWDOWN) this.peakEquity = null; // the next sane reading is the peak
    if (latch === LATCH_ORDER_RATE) {
      this.sentWindow.length = 0;
      this.sentInWindow = 0;
    }
  }

  private setLatch(latch: string, reason: string, now: number): void {
    this.journal.setLatch(latch, reason, now);
    const tripped = !this.seenLatches.has(latch);
    this.seenLatches.add(latch);
    if (tripped) this.told(now, strictest(this.seenState(), this.manual), `${latch}: ${reason}`);
  }

  /** The first set latch holding `holds`, as `name: reason`. */
  private reasonOf(holds: TradingState): string | undefined {
    for (const latch of LATCHES) {
      const held = latch.holds === holds ? this.journal.latch(latch.name) : undefined;
      if (held) return `${latch.name}: ${held.reason}`;
    }
    return undefined;
  }

  /** Why trading is halted by a kill switch, if it is. */
  latchReason(): string | undefined {
    return this.reasonOf('halted');
  }

  /** Why only orders that reduce exposure are allowed by a latch (a drawdown threshold, an operator), if they are. */
  reduceReason(): string | undefined {
    return this.reasonOf('reducing');
  }

  /** The operator's in-process setting (not kept in the journal; a latch, when stricter, wins). */
  setState(state: TradingState): void {
    if (state === this.manual) return;
    this.manual = state;
    const latched = this.syncLatches();
    this.told(this.nowMs(), strictest(latched, state), `operator set ${state}`);
  }

  /**
   * Operator action: only orders that reduce exposure from now on, until reset(). Kept in the journal like a kill
   * switch: it survives a restart, and a gate running in another process takes it in.
   */
  reduce(reason: string): void {
    const why = reason.trim();
    if (why === '') throw new RangeError('a reduce order needs a reason: it is kept in the journal');
    this.syncLatches(); // one set by another process is told with its own reason, not set again
    this.setLatch(LATCH_REDUCE_OPERATOR, why, this.nowMs());
  }

  /**
   * Operator action: the kill switch, now (halted until reset(); the kill action of `risk.onKill` follows). Kept in
   * the journal like the others: it survives a restart, and a gate running in another process takes it in.
   */
  kill(reason: string): void {
    const why = reason.trim();
    if (why === '') throw new RangeError('a kill order needs a reason: it is kept in the journal');
    this.syncLatches();
    this.setLatch(LATCH_KILL_OPERATOR, why, this.nowMs());
  }

  /** Operator action: clears every latch, kill switches and reduce orders (a gate running in another process notices). */
  reset(): void {
    const cleared = LATCHES.filter(({ name }) => this.seenLatches.has(name) || this.journal.latch(name));
    for (const { name } of LATCHES) {
      this.journal.clearLatch(name);
      this.seenLatches.delete(name);
      this.afterReset(name);
    }
    const now = this.nowMs();
    for (const { name } of cleared) this.told(now, this.manual, `${name} reset`);
  }

  /** Reports orders that reached the venue (accepted, or outcome unknown) at `atMs`: what the order-rate breaker counts. */
  recordSent(count: number, atMs: number): void {
    this.lastSeenMs = atMs;
    if (count <= 0) return;
    this.sentWindow.push({ atMs, count });
    this.sentInWindow += count;
  }

  /**
   * Feeds total equity. Returns true when the drawdown from its peak trips the kill switch (halted); a drawdown
   * at reduceDrawdownPct, when configured, latches reducing.
   */
  onEquity(equity: Decimal, now: number): boolean {
    this.lastSeenMs = now;
    this.syncLatches();
    if (!this.peakEquity || equity.gte(this.peakEquity)) {
      this.peakEquity = equity;
      return false; // at the peak: no drawdown
    }
    if (this.peakEquity.isZero()) return false;
    // (peak − equity) × 100 / peak to 8 places is (peak − equity) / peak to 10 places, times 100: the same digits.
    const drawdownPct = this.peakEquity.sub(equity).div(this.peakEquity, 10).movePoint(2);
    const reason = () => `drawdown ${drawdownPct.toString()} % from peak ${this.peakEquity!.toString()}`;
    if (drawdownPct.gte(this.limits.maxDrawdownPct)) {
      this.setLatch(LATCH_DRAWDOWN, reason(), now);
      return true;
    }
    const reduceAt = this.limits.reduceDrawdownPct;
    if (reduceAt && drawdownPct.gte(reduceAt) && !this.seenLatches.has(LATCH_REDUCE_DRAWDOWN)) this.setLatch(LATCH_REDUCE_DRAWDOWN, reason(), now);
    return false;
  }

  /** Takes in the account as the positions and balances streams report it: what the rules see as `account`. */
  observeAccount(snapshot: AccountSnapshot): void {
    const was = this.accountView;
    // Every field named (no spread): one shape for every snapshot keeps this cheap on each poll.
    this.accountView = {
      positions: snapshot.positions ?? was.positions,
      balances: snapshot.balances ?? was.balances,
      positionsAtMs: snapshot.positions ? snapshot.atMs : was.positionsAtMs,
      balancesAtMs: snapshot.balances ? snapshot.atMs : was.balancesAtMs,
      liquidation: was.liquidation,
    };
  }

  /**
   * Takes in the futures positions' distance to liquidation (liquidation-watch.ts): what the liquidation-distance
   * rule reads. A distance below reduceLiquidationDistancePct, when configured, latches reducing.
   */
  observeLiquidation(view: LiquidationView | (() => LiquidationView), atMs?: number): void {
    const read = typeof view === 'function' ? view : () => view;
    this.liquidationRead = read;
    this.lastSeenMs = Math.max(this.lastSeenMs, atMs ?? read().atMs);
    const reduceAt = this.limits.reduceLiquidationDistancePct;
    if (!reduceAt) return;
    const near = closest(read().distances);
    if (!near || !near.distancePct!.lt(reduceAt)) return;
    this.syncLatches(); // one set already (maybe by another process) is not set again
    if (this.seenLatches.has(LATCH_REDUCE_LIQUIDATION)) return;
    const reason = `${near.symbol} ${near.side}: mark ${near.mark.toString()} is ${near.distancePct!.toString()} % from liquidation at ${near.liquidationPrice!.toString()} (below ${reduceAt.toString()} %)`;
    this.setLatch(LATCH_REDUCE_LIQUIDATION, reason, this.clock?.now() ?? this.lastSeenMs);
  }

  /** The account as last observed, with the distance to liquidation worked out from it now. */
  private accountNow(): AccountView {
    const v = this.accountView;
    return {
      positions: v.positions,
      balances: v.balances,
      positionsAtMs: v.positionsAtMs,
      balancesAtMs: v.balancesAtMs,
      liquidation: this.liquidationRead?.() ?? null,
    };
  }

  /** The account as last observed. */
  account(): AccountView {
    return this.accountNow();
  }

  /**
   * Checks the orders of a place intent. Returns those allowed and a denial for each of the others; an intent
   * that is malformed as a whole or carries more than maxOrdersPerIntent orders gets one denial (order null).
   * Nothing is recorded: the executor reports what it sent with recordSent.
   */
  checkPlace(intent: PlaceIntent, ctx: RiskContext): { allowed: OrderSpec[]; denials: Denial[] } {
    const whole = firstProblem(INTENT_RULES, intent, this.limits);
    if (whole) return { allowed: [], denials: [{ order: null, reason: whole.reason, detail: whole.detail }] };
    const denials: Denial[] = [];
    const allowed: OrderSpec[] = [];
    this.lastSeenMs = ctx.now;
    const state = this.state();
    const instrument = ctx.instrument(intent.symbol);
    const reference = ctx.reference(intent.symbol);
    const staleAfterMs = this.limits.staleAfterMsBySymbol?.get(intent.symbol) ?? this.limits.staleAfterMs;
    const refProblem = referenceProblem(intent.symbol, reference, ctx.now, staleAfterMs);
    let openCount = ctx.openCount(intent.symbol);
    let openCountByStrategy = ctx.openCountByStrategy(intent.strategyId);
    let openNotional = ctx.openNotional(intent.symbol);
    this.expire(ctx.now);
    const haltReason = () => this.latchReason();
    // The distance to liquidation is worked out only where a rule reads it.
    const account = this.limits.minLiquidationDistancePct && intent.surface === 'futures' ? this.accountNow() : this.accountView;
    for (const order of intent.orders) {
      const check: OrderCheck = {
        order,
        intent,
        limits: this.limits,
        state,
        haltReason,
        instrument,
        reference,
        referenceProblem: refProblem,
        openCount,
        openCountByStrategy,
        openNotional,
        sentCount: this.sentInWindow + allowed.length,
        account,
        value: undefined,
      };
      const problem = firstProblem(ORDER_RULES, check);
      if (problem) {
        if (problem.latch) this.setLatch(problem.latch.name, problem.latch.reason, ctx.now);
        denials.push({ order, reason: problem.reason, detail: problem.detail });
        continue;
      }
      if (order.kind === 'limit') {
        openCount++;
        openCountByStrategy++;
      }
      if (!reducesExposure(order, intent.surface)) openNotional = openNotional.add(orderValue(check));
      allowed.push(order);
    }
    return { allowed, denials };
  }

  /** A trigger order: the same checks, at its execution (or trigger) price; both prices must be positive. */
  checkTrigger(intent: Extract<Intent, { kind: 'place-trigger' }>, ctx: RiskContext): Denial[] {
    const shape = malformedTrigger(intent);
    if (shape) return [{ order: null, reason: 'malformed-order', detail: shape }];
    if (!intent.triggerPrice.gt(Decimal.ZERO))
      return [{ order: null, reason: 'non-positive-price', detail: `trigger price ${intent.triggerPrice.toString()}` }];
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

  /**
   * A protect intent (managed stops): its shape, and positive prices (stop-loss and take-profit on the tick) for a
   * futures contract. Protection only ever closes a position, so it passes while reducing. While halted (cancels
   * only) a strategy cannot ask for new protection, only remove it; the stop manager goes on keeping the protection
   * it already holds (placing, moving, resizing it), since a position left without its stop on a halted bot is
   * worse than one kept.
   */
  checkProtect(intent: ProtectIntent, ctx: RiskContext): Denial[] {
    const deny = (reason: DenialReason, detail: string): Denial[] => [{ order: null, reason, detail }];
    const shape = malformedProtect(intent);
    if (shape) return deny('malformed-order', shape);
    const instrument = ctx.instrument(intent.symbol);
    if (!instrument || instrument.surface !== 'futures')
      return deny('unknown-symbol', `${intent.symbol} is not a futures contract: protection is for futures positions`);
    const prices: Array<[string, Decimal | null | undefined, boolean]> = [
      ['stopLoss', intent.stopLoss, true],
      ['takeProfit', intent.takeProfit, true],
      ['trailing.distance', intent.trailing?.distance, false],
      ['trailing.step', intent.trailing?.step, false],
    ];
    for (const [name, price, onTick] of prices) {
      if (price == null) continue;
      if (!price.gt(Decimal.ZERO)) return deny('non-positive-price', `${name} ${price.toString()}`);
      if (onTick && !price.isMultipleOf(instrument.tickSize))
        return deny('off-tick', `${name} ${price.toString()} is not a multiple of ${instrument.tickSize.toString()}`);
    }
    this.lastSeenMs = ctx.now;
    if (this.state() === 'halted' && !removesProtection(intent))
      return deny('halted', `new protection refused (removal allowed): ${this.latchReason() ?? 'trading halted'}`);
    return [];
  }

  private expire(now: number): void {
    while (this.sentWindow.length > 0 && now - this.sentWindow[0]!.atMs >= RATE_WINDOW_MS) this.sentInWindow -= this.sentWindow.shift()!.count;
  }
}
