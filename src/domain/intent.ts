// Intents: what a strategy wants done, as plain data. The executor turns them into exchange calls.
import type { Decimal } from './decimal.js';
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
  | { kind: 'cancel-trigger'; strategyId: string; symbol: string; orderId: string };

export type IntentKind = Intent['kind'];

/** Does this order only shrink exposure? (Spot sells and futures closes.) */
export function reducesExposure(o: OrderSpec, surface: Surface): boolean {
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

