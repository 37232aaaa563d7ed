// Execution events: what happened to an intent and its orders (past tense), and changes of the trading state,
// for strategies, the activity log and the journal.
import type { Decimal } from './decimal.js';
import type { PositionSide, Surface } from './market.js';
import type { OrderState } from './order-lifecycle.js';
import type { Side } from './order.js';

interface Base {
  strategyId: string;
  surface: Surface;
  symbol: string;
  clientOid: string;
  atMs: number;
}

export type ExecutionEvent =
  | (Base & { type: 'accepted'; orderId: string; /** A trigger (plan) order, waiting for its price. */ trigger: boolean })
  | (Base & { type: 'rejected'; code: string | undefined; reason: string })
  | (Base & { type: 'unknown'; reason: string })
  | (Base & { type: 'resolved'; orderId: string; state: OrderState })
  | (Base & { type: 'lost'; reason: string })
  /** Final after the venue stopped knowing it: `vanished` (it was open) or `not-placed` (it was lost). */
  | (Base & { type: 'vanished'; state: 'vanished' | 'not-placed'; reason: string })
  /** Cumulative figures of the order (filled size so far, its average price), with the order's side and position. */
  | (Base & { type: 'partially-filled' | 'filled'; orderId: string; filledSize: Decimal; avgPrice: Decimal | null } & FillSide)
  | (Base & { type: 'canceled'; orderId: string })
  | (Base & { type: 'triggered'; orderId: string })
  | { type: 'denied'; strategyId: string; surface: Surface; symbol: string; atMs: number; reason: string; detail: string }
  /** The trading state in force changed (a kill switch latched, a reduce order, a reset, an operator's setting). */
  | { type: 'trading-state'; atMs: number; state: TradingState; reason: string };

/** The side of a filled order, and on futures the position it opens or closes (`reduceOnly`: closes). */
export interface FillSide {
  side: Side;
  positionSide: PositionSide | null;
  reduceOnly: boolean;
}

/** The fill event's side fields of an order as written down (the journal keeps the position side as text). */
export function fillSideOf(order: { side: Side; positionSide: string | null; reduceOnly: boolean }): FillSide {
  const p = order.positionSide;
  return { side: order.side, positionSide: p === 'long' || p === 'short' ? p : null, reduceOnly: order.reduceOnly };
}

/** active: any order; reducing: only orders that shrink exposure; halted: cancels only. */
export type TradingState = 'active' | 'reducing' | 'halted';

export type TradingStateChanged = Extract<ExecutionEvent, { type: 'trading-state' }>;
