// Intents: what a strategy wants done, as plain data. The executor turns them into exchange calls.
import { Decimal } from './decimal.js';
import type { PositionSide, Surface } from './market.js';
import type { Order, OrderKind, Side, TimeInForce } from './order.js';

/** One order a strategy wants; the executor gives it its client id. */
export interface OrderSpec {
  side: Side;
  kind: OrderKind;
  timeInForce: TimeInForce;
  price?: Decimal;
  size: Decimal;
  /** Futures: the position the order opens (reduceOnly false) or closes (true). */
  positionSide?: PositionSide;
  reduceOnly?: boolean;
}

export type Intent =
  | { kind: 'place'; strategyId: string; surface: Surface; symbol: string; orders: OrderSpec[] }
  | { kind: 'cancel'; strategyId: string; surface: Surface; symbol: string; orderIds?: string[]; clientOids?: string[] }
  | { kind: 'cancel-all'; strategyId: string; surface: Surface; symbol: string }
  | {
      kind: 'place-trigger';
      strategyId: string;
      symbol: string;
      positionSide: PositionSide;
      reduceOnly: boolean;
      size: Decimal;
      triggerPrice: Decimal;
      executePrice?: Decimal;
    }
  | { kind: 'cancel-trigger'; strategyId: string; symbol: string; orderId: string }
  /**
   * The protection wanted on one futures position side of a strategy (one per strategy, symbol and position side):
   * a stop-loss and a take-profit trigger price, and a trailing stop. null or absent: none. A protect replaces the
   * previous one of its key; one with all three null or absent removes it. The stop manager keeps the venue in
   * line: position TP/SL orders sized to the position, placed while it has size, moved, resized, removed when flat.
   */
  | {
      kind: 'protect';
      strategyId: string;
      symbol: string;
      positionSide: PositionSide;
      stopLoss?: Decimal | null;
      takeProfit?: Decimal | null;
      trailing?: TrailingStop | null;
    };

export type IntentKind = Intent['kind'];

export type ProtectIntent = Extract<Intent, { kind: 'protect' }>;

/**
 * A trailing stop: it follows the best price since the position opened (the highest for a long, the lowest for a
 * short) at `distance` behind it, moved only when it improves by at least `step`, never loosened.
 */
export interface TrailingStop {
  distance: Decimal;
  step: Decimal;
}

// The values each field may take, checked at run time: strategies are JavaScript and may send anything. A
// Record over each union makes the compiler ask for a new value here when the union grows.
const SIDES: Record<Side, true> = { buy: true, sell: true };
const KINDS: Record<OrderKind, true> = { limit: true, market: true };
const TIMES_IN_FORCE: Record<TimeInForce, true> = { gtc: true, post_only: true, fok: true, ioc: true };
const POSITION_SIDES: Record<PositionSide, true> = { long: true, short: true };
const SURFACES: Record<Surface, true> = { spot: true, futures: true };

const oneOf = (table: Record<string, true>, x: unknown): boolean => typeof x === 'string' && Object.hasOwn(table, x);

/**
 * An exact decimal. Duck-typed rather than `instanceof`: a strategy loaded through the package entry may hold
 * another copy of the Decimal class (dist/ beside src/), whose values are as good.
 */
function isDecimal(x: unknown): x is Decimal {
  if (x instanceof Decimal) return true;
  if (typeof x !== 'object' || x === null) return false;
  const d = x as { mantissa?: unknown; scale?: unknown; mul?: unknown };
  return typeof d.mantissa === 'bigint' && Number.isSafeInteger(d.scale) && (d.scale as number) >= 0 && typeof d.mul === 'function';
}

const show = (x: unknown): string => (typeof x === 'string' ? JSON.stringify(x) : typeof x === 'bigint' ? `${x}n` : String(x));

/** What is wrong with the shape of an order a strategy asked for (undefined: nothing); its values are checked by the risk gate. */
export function malformedOrder(o: unknown): string | undefined {
  if (typeof o !== 'object' || o === null) return `an order must be an object, got ${show(o)}`;
  const x = o as Record<string, unknown>;
  if (!oneOf(SIDES, x.side)) return `side ${show(x.side)} is not buy or sell`;
  if (!oneOf(KINDS, x.kind)) return `kind ${show(x.kind)} is not limit or market`;
  if (!oneOf(TIMES_IN_FORCE, x.timeInForce)) return `timeInForce ${show(x.timeInForce)} is not gtc, post_only, fok or ioc`;
  if (!isDecimal(x.size)) return `size ${show(x.size)} is not a Decimal`;
  // Optional fields: null is taken as absent (an Order's own fields spread into a spec carry nulls).
  if (x.price != null && !isDecimal(x.price)) return `price ${show(x.price)} is not a Decimal`;
  if (x.positionSide != null && !oneOf(POSITION_SIDES, x.positionSide)) return `positionSide ${show(x.positionSide)} is not long or short`;
  if (x.reduceOnly != null && typeof x.reduceOnly !== 'boolean') return `reduceOnly ${show(x.reduceOnly)} is not a boolean`;
  return undefined;
}

/** What is wrong with the shape of a place intent itself (its orders are checked one by one). */
export function malformedPlace(intent: { surface: unknown; orders: unknown }): string | undefined {
  if (!oneOf(SURFACES, intent.surface)) return `surface ${show(intent.surface)} is not spot or futures`;
  if (!Array.isArray(intent.orders)) return `orders ${show(intent.orders)} is not a list`;
  return undefined;
}

/** What is wrong with the shape of a trigger intent (undefined: nothing). */
export function malformedTrigger(trigger: object): string | undefined {
  const intent = trigger as Record<string, unknown>;
  if (!oneOf(POSITION_SIDES, intent.positionSide)) return `positionSide ${show(intent.positionSide)} is not long or short`;
  if (typeof intent.reduceOnly !== 'boolean') return `reduceOnly ${show(intent.reduceOnly)} is not a boolean`;
  if (!isDecimal(intent.size)) return `size ${show(intent.size)} is not a Decimal`;
  if (!isDecimal(intent.triggerPrice)) return `triggerPrice ${show(intent.triggerPrice)} is not a Decimal`;
  if (intent.executePrice != null && !isDecimal(intent.executePrice)) return `executePrice ${show(intent.executePrice)} is not a Decimal`;
  return undefined;
}

/** What is wrong with the shape of a protect intent (undefined: nothing); its prices are checked by the risk gate. */
export function malformedProtect(protect: object): string | undefined {
  const intent = protect as Record<string, unknown>;
  if (!oneOf(POSITION_SIDES, intent.positionSide)) return `positionSide ${show(intent.positionSide)} is not long or short`;
  if (intent.stopLoss != null && !isDecimal(intent.stopLoss)) return `stopLoss ${show(intent.stopLoss)} is not a Decimal`;
  if (intent.takeProfit != null && !isDecimal(intent.takeProfit)) return `takeProfit ${show(intent.takeProfit)} is not a Decimal`;
  const trailing = intent.trailing;
  if (trailing != null) {
    if (typeof trailing !== 'object') return `trailing ${show(trailing)} is not an object`;
    const t = trailing as Record<string, unknown>;
    if (!isDecimal(t.distance)) return `trailing.distance ${show(t.distance)} is not a Decimal`;
    if (!isDecimal(t.step)) return `trailing.step ${show(t.step)} is not a Decimal`;
  }
  return undefined;
}

/** Does a (well-formed) protect intent remove the protection of its key (no stop-loss, take-profit or trailing)? */
export function removesProtection(intent: ProtectIntent): boolean {
  return intent.stopLoss == null && intent.takeProfit == null && intent.trailing == null;
}

/** Does this order only shrink exposure? (Spot sells and futures closes.) */
export function reducesExposure(o: { side: Side | null; reduceOnly?: boolean }, surface: Surface): boolean {
  return surface === 'futures' ? o.reduceOnly === true : o.side === 'sell';
}

function key(o: { side: Side | null; price?: Decimal | null; positionSide?: PositionSide | null; reduceOnly?: boolean }): string {
  return `${o.side}|${o.price ? o.price.toString() : 'mkt'}|${o.positionSide ?? ''}|${o.reduceOnly ? 'r' : ''}`;
}

/**
 * Diffs the orders a strategy wants resting against those that are: an open order whose side, price, position
 * and remaining size match a target is kept; other open orders are cancelled; unmatched targets are placed.
 */
export function diffTargets(targets: OrderSpec[], open: Order[]): { cancel: Order[]; place: OrderSpec[] } {
  const pool = new Map<string, Order[]>();
  for (const o of open) {
    const k = key(o);
    pool.set(k, [...(pool.get(k) ?? []), o]);
  }
  const place: OrderSpec[] = [];
  for (const t of targets) {
    const candidates = pool.get(key(t)) ?? [];
    const i = candidates.findIndex((o) => o.size.sub(o.filledSize).eq(t.size));
    if (i >= 0) candidates.splice(i, 1);
    else place.push(t);
  }
  const cancel = [...pool.values()].flat();
  return { cancel, place };
}
