// The arithmetic of managed stops on one position side: the best price since the position opened, the trailing
// stop it carries (moved in steps, never loosened), and the stop-loss in force (the tighter of a fixed one and the
// trailing one). Pure functions over exact decimals; prices that reach the venue are on the tick.
import type { Decimal } from '../domain/decimal.js';
import type { TrailingStop } from '../domain/intent.js';
import type { PositionSide } from '../domain/market.js';

/** The better of two prices for a position side (higher for a long, lower for a short); either may be missing. */
export function bestOf(side: PositionSide, a: Decimal | null, b: Decimal | null): Decimal | null {
  if (!a) return b;
  if (!b) return a;
  return side === 'long' ? (b.gt(a) ? b : a) : b.lt(a) ? b : a;
}

/** The tighter of two stop-loss prices (nearer the price: higher for a long, lower for a short); either may be missing. */
export const tighterStop = bestOf;

/**
 * Where a trailing stop `distance` behind `extreme` sits, on the tick, rounded away from the price (down for a
 * long, up for a short) so the rounding never tightens it past its distance.
 */
export function trailLevel(side: PositionSide, extreme: Decimal, distance: Decimal, tick: Decimal): Decimal {
  return side === 'long' ? extreme.sub(distance).roundToStep(tick, 'down') : extreme.add(distance).roundToStep(tick, 'up');
}

/**
 * The trailing stop after the best price became `extreme`: the level `distance` behind it when that improves on the
 * stop held by at least `step` (or when none is held yet), else the stop held. Never loosened.
 */
export function nextTrail(side: PositionSide, held: Decimal | null, extreme: Decimal, trailing: TrailingStop, tick: Decimal): Decimal {
  const level = trailLevel(side, extreme, trailing.distance, tick);
  if (!held) return level;
  const gain = side === 'long' ? level.sub(held) : held.sub(level);
  return gain.gte(trailing.step) ? level : held;
}
