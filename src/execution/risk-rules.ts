// The risk rules: one small function per check, each with its denial reason, listed in the order the gate applies
// them (the first problem found is the order's denial). A rule reads the order, its intent and what the gate
// knows (trading state, instrument, reference price, what is open, what was sent, the account) and changes
// nothing; a rule that trips a kill switch says which latch to set, and the gate sets it.
import { Decimal } from '../domain/decimal.js';
import type { TradingState } from '../domain/events.js';
import { malformedOrder, malformedPlace, reducesExposure, type Intent, type OrderSpec } from '../domain/intent.js';
import type { Balance, Instrument, Position } from '../domain/market.js';
import { futuresSide } from '../domain/order.js';
import type { ReferencePrice } from '../domain/price-sanity.js';
import { LATCH_ORDER_RATE } from './latches.js';
import { closest, type LiquidationView } from './liquidation-watch.js';

export interface RiskLimits {
  maxNotionalPerOrder: Decimal;
  maxNotionalPerSymbol: Decimal;
  maxOpenOrdersPerSymbol: number;
  maxOpenOrdersPerStrategy: number;
  /** Percent around the reference price; the tighter of this and the instrument's own limit ratios applies. */
  priceBandPct: Decimal;
  /** A reference price older than this stops new orders. */
  staleAfterMs: number;
  /** Instead of staleAfterMs, for these symbols (a backtest's candle data: the data's own cadence). */
  staleAfterMsBySymbol?: ReadonlyMap<string, number>;
  /** Orders per minute before the breaker trips (and latches halted). */
  maxOrdersPerMinute: number;
  /** Drawdown from the equity peak, in percent, that trips the kill switch. */
  maxDrawdownPct: Decimal;
  /** Drawdown from the equity peak, in percent, that latches reducing (below maxDrawdownPct); absent: never. */
  reduceDrawdownPct?: Decimal;
  /** Orders one place intent may carry; a larger intent is refused whole, with one denial. */
  maxOrdersPerIntent: number;
  /**
   * A price further than this percent from the previous accepted one, or from the ticker's own bid/ask, is not
   * trusted until confirmed (domain/price-sanity.ts): it prices no order and values no equity.
   */
  outlierPct: Decimal;
  /**
   * Orders that add to a futures position are denied while a position of that contract is closer than this percent
   * of its mark to its liquidation price; absent: never.
   */
  minLiquidationDistancePct?: Decimal;
  /** A futures position closer than this percent of its mark to its liquidation price latches reducing; absent: never. */
  reduceLiquidationDistancePct?: Decimal;
}

export type DenialReason =
  | 'halted'
  | 'reducing'
  | 'fenced'
  | 'unknown-symbol'
  | 'no-reference-price'
  | 'stale-price'
  | 'off-tick'
  | 'off-step'
  | 'below-min-size'
  | 'above-max-size'
  | 'price-band'
  | 'max-notional-order'
  | 'max-notional-symbol'
  | 'max-open-orders-symbol'
  | 'max-open-orders-strategy'
  | 'order-rate'
  | 'missing-price'
  | 'side-mismatch'
  | 'malformed-order'
  | 'too-many-orders'
  | 'non-positive-price'
  | 'non-positive-size'
  | 'liquidation-distance';

export interface Problem {
  reason: DenialReason;
  detail: string;
  /** The kill switch this denial trips: the gate latches it (halted) before denying. */
  latch?: { name: string; reason: string };
}

/** The account as last observed (positions and balances streams): what rules about exposure read. */
export interface AccountView {
  positions: readonly Position[];
  balances: readonly Balance[];
  /** When each was last observed; null before the first observation. */
  positionsAtMs: number | null;
  balancesAtMs: number | null;
  /** The futures positions' distance to liquidation, as last worked out (liquidation-watch.ts); null before. */
  liquidation: LiquidationView | null;
}

export type PlaceIntent = Extract<Intent, { kind: 'place' }>;

/** One order of a place intent, with what the gate knows when it is checked. */
export interface OrderCheck {
  order: OrderSpec;
  intent: PlaceIntent;
  limits: RiskLimits;
  /** The state in force when the intent reached the gate. */
  state: TradingState;
  /** Why trading is halted (the latch and its reason), for a denial's detail. */
  haltReason(): string | undefined;
  instrument: Instrument | undefined;
  reference: ReferencePrice | undefined;
  /** Why the reference cannot price an order, found once per intent. */
  referenceProblem: Problem | undefined;
  /** Open orders (ours, not final, and what the venue listed) of the symbol and of the strategy, and their notional on the symbol, with the orders of this intent allowed so far. */
  openCount: number;
  openCountByStrategy: number;
  openNotional: Decimal;
  /** Orders sent in the last minute, and those of this intent allowed before this one (they will be sent). */
  sentCount: number;
  account: AccountView;
  /** The order's value (orderValue), once worked out. */
  value?: Decimal;
}

export const HUNDRED = Decimal.fromInt(100);

/**
 * What an order is worth: a market order at the reference price (a price it carries is not what it trades at: the
 * venue ignores it). Worked out once per check: two rules and the gate read it.
 */
export function orderValue(c: Pick<OrderCheck, 'order' | 'reference' | 'value'>): Decimal {
  if (c.value) return c.value;
  const order = c.order;
  return (c.value = (order.kind === 'limit' ? order.price! : c.reference!.price).mul(order.size));
}

/** Why a reference price cannot price an order: none, not positive, or stale by the poll or by the venue's own timestamp. */
export function referenceProblem(symbol: string, ref: ReferencePrice | undefined, nowMs: number, staleAfterMs: number): Problem | undefined {
  if (!ref) return { reason: 'no-reference-price', detail: `${symbol}: no trusted price` };
  if (!ref.price.gt(Decimal.ZERO)) return { reason: 'no-reference-price', detail: `${symbol}: reference price ${ref.price.toString()} is not positive` };
  if (nowMs - ref.atMs > staleAfterMs) return { reason: 'stale-price', detail: `reference price is ${nowMs - ref.atMs} ms old (limit ${staleAfterMs} ms)` };
  if (ref.sourceAdvancedAtMs !== undefined && nowMs - ref.sourceAdvancedAtMs > staleAfterMs) {
    return { reason: 'stale-price', detail: `the venue's own timestamp has not advanced for ${nowMs - ref.sourceAdvancedAtMs} ms (limit ${staleAfterMs} ms)` };
  }
  return undefined;
}

// Rules of a whole place intent: one denial for the intent (order null), before any order is looked at.

export type IntentRule = (intent: PlaceIntent, limits: RiskLimits) => Problem | undefined;

export const malformedIntentRule: IntentRule = (intent) => {
  const shape = malformedPlace(intent);
  return shape ? { reason: 'malformed-order', detail: shape } : undefined;
};

export const tooManyOrdersRule: IntentRule = (intent, limits) =>
  intent.orders.length > limits.maxOrdersPerIntent
    ? { reason: 'too-many-orders', detail: `${intent.orders.length} orders in one intent (limit ${limits.maxOrdersPerIntent})` }
    : undefined;

export const INTENT_RULES: readonly IntentRule[] = [malformedIntentRule, tooManyOrdersRule];

// Rules of one order. A rule that needs the instrument or the reference passes without them: earlier rules deny
// an order that has none.

export type OrderRule = (c: OrderCheck) => Problem | undefined;

const problem = (reason: DenialReason, detail: string): Problem => ({ reason, detail });

export const malformedOrderRule: OrderRule = (c) => {
  const malformed = malformedOrder(c.order);
  return malformed ? problem('malformed-order', malformed) : undefined;
};

export const haltedRule: OrderRule = (c) => (c.state === 'halted' ? problem('halted', c.haltReason() ?? 'trading halted') : undefined);

export const reducingRule: OrderRule = (c) =>
  c.state === 'reducing' && !reducesExposure(c.order, c.intent.surface) ? problem('reducing', 'only orders that reduce exposure are allowed') : undefined;

export const unknownSymbolRule: OrderRule = (c) => (c.instrument ? undefined : problem('unknown-symbol', c.intent.symbol));

export const surfaceRule: OrderRule = (c) =>
  c.instrument && c.instrument.surface !== c.intent.surface
    ? problem('malformed-order', `${c.intent.symbol} is a ${c.instrument.surface} symbol, not ${c.intent.surface}`)
    : undefined;

export const referenceRule: OrderRule = (c) =>
  c.referenceProblem || !c.reference ? problem(c.referenceProblem?.reason ?? 'no-reference-price', c.referenceProblem?.detail ?? c.intent.symbol) : undefined;

/** Futures: opening a long and closing a short buy; opening a short and closing a long sell. */
export const sideRule: OrderRule = (c) => {
  const order = c.order;
  if (c.intent.surface !== 'futures') return undefined;
  const positionSide = order.positionSide ?? (order.side === 'buy' ? 'long' : 'short');
  if (order.side === futuresSide(positionSide, order.reduceOnly ?? false)) return undefined;
  return problem('side-mismatch', `${order.side} cannot ${order.reduceOnly ? 'close' : 'open'} a ${positionSide} position`);
};

/**
 * Futures: an order that adds to a position (not reduce-only) is denied while a position of the contract is closer
 * to its liquidation price than minLiquidationDistancePct (of the mark).
 */
export const liquidationDistanceRule: OrderRule = (c) => {
  const min = c.limits.minLiquidationDistancePct;
  if (!min || c.intent.surface !== 'futures' || c.order.reduceOnly === true || !c.account.liquidation) return undefined;
  const near = closest(c.account.liquidation.distances, c.intent.symbol);
  if (!near || !near.distancePct!.lt(min)) return undefined;
  return problem(
    'liquidation-distance',
    `${near.symbol} ${near.side}: mark ${near.mark.toString()} is ${near.distancePct!.toString()} % from liquidation at ${near.liquidationPrice!.toString()} (minimum ${min.toString()} %): only reduce-only orders`,
  );
};

export const positiveSizeRule: OrderRule = (c) => (c.order.size.gt(Decimal.ZERO) ? undefined : problem('non-positive-size', `size ${c.order.size.toString()}`));

export const positivePriceRule: OrderRule = (c) =>
  c.order.price != null && !c.order.price.gt(Decimal.ZERO) ? problem('non-positive-price', `price ${c.order.price.toString()}`) : undefined;

export const stepRule: OrderRule = (c) =>
  c.instrument && !c.order.size.isMultipleOf(c.instrument.stepSize)
    ? problem('off-step', `size ${c.order.size.toString()} is not a multiple of ${c.instrument.stepSize.toString()}`)
    : undefined;

export const minSizeRule: OrderRule = (c) =>
  c.instrument && c.order.size.lt(c.instrument.minSize)
    ? problem('below-min-size', `${c.order.size.toString()} < ${c.instrument.minSize.toString()}`)
    : undefined;

export const maxSizeRule: OrderRule = (c) =>
  c.instrument?.maxSize && c.order.size.gt(c.instrument.maxSize)
    ? problem('above-max-size', `${c.order.size.toString()} > ${c.instrument.maxSize.toString()}`)
    : undefined;

export const missingPriceRule: OrderRule = (c) =>
  c.order.kind !== 'market' && !c.order.price ? problem('missing-price', 'a limit order needs a price') : undefined;

export const tickRule: OrderRule = (c) => {
  const { order, instrument } = c;
  if (order.kind === 'market' || !order.price || !instrument || order.price.isMultipleOf(instrument.tickSize)) return undefined;
  return problem('off-tick', `price ${order.price.toString()} is not a multiple of ${instrument.tickSize.toString()}`);
};

/** The tighter of the configured band and the instrument's limit ratio, around the reference price. */
export const priceBandRule: OrderRule = (c) => {
  const { order, instrument } = c;
  if (order.kind === 'market' || !order.price || !instrument || !c.reference) return undefined;
  const ref = c.reference.price;
  const venuePct = (order.side === 'buy' ? instrument.buyLimitPriceRatio : instrument.sellLimitPriceRatio)?.mul(HUNDRED);
  const bandPct = venuePct && venuePct.lt(c.limits.priceBandPct) ? venuePct : c.limits.priceBandPct;
  const distPct = order.price.sub(ref).abs().mul(HUNDRED).div(ref, 8);
  return distPct.gt(bandPct)
    ? problem('price-band', `price ${order.price.toString()} is ${distPct.toString()} % from ${ref.toString()} (band ${bandPct.toString()} %)`)
    : undefined;
};

export const maxNotionalOrderRule: OrderRule = (c) => {
  if (!c.reference) return undefined;
  const value = orderValue(c);
  return value.gt(c.limits.maxNotionalPerOrder) ? problem('max-notional-order', `${value.toString()} > ${c.limits.maxNotionalPerOrder.toString()}`) : undefined;
};

/** Orders that reduce exposure do not count towards a symbol's notional. */
export const maxNotionalSymbolRule: OrderRule = (c) => {
  if (!c.reference || reducesExposure(c.order, c.intent.surface)) return undefined;
  const total = c.openNotional.add(orderValue(c));
  return total.gt(c.limits.maxNotionalPerSymbol)
    ? problem('max-notional-symbol', `${total.toString()} > ${c.limits.maxNotionalPerSymbol.toString()}`)
    : undefined;
};

export const maxOpenSymbolRule: OrderRule = (c) =>
  c.order.kind === 'limit' && c.openCount + 1 > c.limits.maxOpenOrdersPerSymbol
    ? problem('max-open-orders-symbol', `${c.openCount + 1} > ${c.limits.maxOpenOrdersPerSymbol}`)
    : undefined;

export const maxOpenStrategyRule: OrderRule = (c) =>
  c.order.kind === 'limit' && c.openCountByStrategy + 1 > c.limits.maxOpenOrdersPerStrategy
    ? problem('max-open-orders-strategy', `${c.openCountByStrategy + 1} > ${c.limits.maxOpenOrdersPerStrategy}`)
    : undefined;

/** The breaker: this order would pass the orders-per-minute limit. It latches halted. */
export const orderRateRule: OrderRule = (c) => {
  const max = c.limits.maxOrdersPerMinute;
  if (c.sentCount + 1 <= max) return undefined;
  return {
    reason: 'order-rate',
    detail: `more than ${max} orders in a minute: halted`,
    latch: { name: LATCH_ORDER_RATE, reason: `more than ${max} orders in a minute` },
  };
};

/** The order rules, in the order they are applied. */
export const ORDER_RULES: readonly OrderRule[] = [
  malformedOrderRule,
  haltedRule,
  reducingRule,
  unknownSymbolRule,
  surfaceRule,
  referenceRule,
  sideRule,
  liquidationDistanceRule,
  positiveSizeRule,
  positivePriceRule,
  stepRule,
  minSizeRule,
  maxSizeRule,
  missingPriceRule,
  tickRule,
  priceBandRule,
  maxNotionalOrderRule,
  maxNotionalSymbolRule,
  maxOpenSymbolRule,
  maxOpenStrategyRule,
  orderRateRule,
];

/** The first problem the rules find, or none (rules of one or two arguments: no array per call, no spread per rule). */
export function firstProblem<A>(rules: ReadonlyArray<(a: A) => Problem | undefined>, a: A): Problem | undefined;
export function firstProblem<A, B>(rules: ReadonlyArray<(a: A, b: B) => Problem | undefined>, a: A, b: B): Problem | undefined;
export function firstProblem<A, B>(rules: ReadonlyArray<(a: A, b: B) => Problem | undefined>, a: A, b?: B): Problem | undefined {
  for (let i = 0; i < rules.length; i++) {
    const found = rules[i]!(a, b as B);
    if (found) return found;
  }
  return undefined;
}
