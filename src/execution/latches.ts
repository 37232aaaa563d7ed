// The risk gate's latches: conditions kept in the journal until an operator resets them (`sextant risk reset`),
// each holding a trading state. A latch survives restarts and is seen by every process on the same journal.
import type { TradingState } from '../domain/events.js';

/** The drawdown kill switch: equity fell maxDrawdownPct below its peak. */
export const LATCH_DRAWDOWN = 'kill-switch:drawdown';
/** The order-rate breaker: more than maxOrdersPerMinute orders reached the venue in a minute. */
export const LATCH_ORDER_RATE = 'kill-switch:order-rate';
/** An operator's kill order (`RiskGate.kill`, `sextant risk kill`), with its reason. */
export const LATCH_KILL_OPERATOR = 'kill-switch:operator';
/** Equity fell reduceDrawdownPct below its peak: only orders that shrink exposure. */
export const LATCH_REDUCE_DRAWDOWN = 'reduce:drawdown';
/** A futures position's mark came within reduceLiquidationDistancePct of its liquidation price: only orders that shrink exposure. */
export const LATCH_REDUCE_LIQUIDATION = 'reduce:liquidation';
/** An operator's reduce order (`RiskGate.reduce`), with its reason. */
export const LATCH_REDUCE_OPERATOR = 'reduce:operator';

/** Every latch and the state it holds, in the order they are read and told. */
export const LATCHES: ReadonlyArray<{ name: string; holds: Exclude<TradingState, 'active'> }> = [
  { name: LATCH_DRAWDOWN, holds: 'halted' },
  { name: LATCH_ORDER_RATE, holds: 'halted' },
  { name: LATCH_KILL_OPERATOR, holds: 'halted' },
  { name: LATCH_REDUCE_DRAWDOWN, holds: 'reducing' },
  { name: LATCH_REDUCE_LIQUIDATION, holds: 'reducing' },
  { name: LATCH_REDUCE_OPERATOR, holds: 'reducing' },
];

/**
 * The kill switches whose latching runs the kill action (config `risk.onKill`: cancel the orders, or flatten):
 * the drawdown and the operator's. The order-rate breaker only halts: it stops a runaway strategy, whose positions
 * are not the problem, and closing them at market would turn a software fault into a loss.
 */
export const KILL_ACTION_LATCHES: readonly string[] = [LATCH_DRAWDOWN, LATCH_KILL_OPERATOR];

const RANK: Record<TradingState, number> = { active: 0, reducing: 1, halted: 2 };

/** The stricter of two trading states: halted over reducing over active. */
export function strictest(a: TradingState, b: TradingState): TradingState {
  return RANK[a] >= RANK[b] ? a : b;
}
