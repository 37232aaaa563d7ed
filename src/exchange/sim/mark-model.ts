// A contract's index and mark price in the simulator, in ticks. The index is the market's price: the last trade of
// the tick (or the index a replay recorded). The mark is the index plus a basis drawn from the market's seed: a
// seeded value every BASIS_KNOT_MINUTES, the basis stepping linearly from one to the next minute by minute, never
// beyond `markBasisBps` basis points of the index (0: mark = index). A replay that recorded the mark gives it as is.
// Integer arithmetic only, no allocation once a knot's values are drawn: the engine reads the mark on every tick of
// a contract holding a position.
import type { SymbolMarket } from './market.js';
import { Prng, deriveSeed } from '../../util/prng.js';

/** Minutes between two seeded basis values (the basis moves at most 1/15 of its range a minute). */
export const BASIS_KNOT_MINUTES = 15;
const MINUTE_MS = 60_000;
/** Basis values are drawn in millionths of the index (one basis point is 100 of them). */
const PPM = 1_000_000;

/** One contract's index and mark (see the header); holds the basis of the knot in use. */
export class MarkModel {
  /** Bound of the basis in millionths of the index. */
  private readonly boundPpm: number;
  private readonly seed: number;
  /** The knot whose values are drawn (NaN: none yet), and the basis at its start and at the next knot, in millionths. */
  private knot = Number.NaN;
  private startPpm = 0;
  private endPpm = 0;

  constructor(
    marketSeed: number,
    symbol: string,
    /** |mark − index| ≤ this many basis points of the index. */
    readonly basisBps: number,
  ) {
    this.boundPpm = basisBps * 100;
    this.seed = deriveSeed(marketSeed, `${symbol}/mark-basis`);
  }

  /** The index in ticks: the recorded one, else the last trade price. */
  indexTicks(m: SymbolMarket): number {
    return m.indexTicks > 0 ? m.indexTicks : m.last;
  }

  /** The mark in ticks: the recorded one, else the index plus the basis at the tick's time, rounded half-up to the tick and held within the bound. */
  markTicks(m: SymbolMarket): number {
    if (m.markTicks > 0) return m.markTicks;
    const index = this.indexTicks(m);
    if (this.boundPpm === 0 || index <= 0) return index;
    const shift = roundedQuotient(index, this.basisScaled(m.ts), BASIS_KNOT_MINUTES * PPM);
    // Rounding may carry the shift past the bound by part of a tick only: clamp it then (rare, so checked first).
    if ((shift < 0 ? -shift : shift) * PPM <= index * this.boundPpm) return index + shift;
    const bound = roundedQuotient(index, this.boundPpm, PPM, true);
    return index + (shift > bound ? bound : shift < -bound ? -bound : shift);
  }

  /** The basis at `ts` as a fraction of the index (for tests and reports): millionths. */
  basisPpm(ts: number): number {
    return this.boundPpm === 0 ? 0 : this.basisScaled(ts) / BASIS_KNOT_MINUTES;
  }

  /** The basis at `ts` in millionths × BASIS_KNOT_MINUTES: the knot's two values weighted by the minute within it. */
  private basisScaled(ts: number): number {
    const minute = Math.floor(ts / MINUTE_MS);
    const knot = Math.floor(minute / BASIS_KNOT_MINUTES);
    if (knot !== this.knot) {
      this.knot = knot;
      this.startPpm = this.knotPpm(knot);
      this.endPpm = this.knotPpm(knot + 1);
    }
    const j = minute - knot * BASIS_KNOT_MINUTES;
    return this.startPpm * (BASIS_KNOT_MINUTES - j) + this.endPpm * j;
  }

  /** The seeded basis of a knot, uniform in [−bound, +bound] millionths. */
  private knotPpm(knot: number): number {
    const rng = new Prng((this.seed ^ Math.imul(knot | 0, 0x9e3779b1)) >>> 0);
    rng.u32();
    return rng.below(2 * this.boundPpm + 1) - this.boundPpm;
  }
}

/** a × b / den rounded half away from zero (or toward zero with `down`), exact: integers, BigInt when a × b is too large for a double. */
function roundedQuotient(a: number, b: number, den: number, down = false): number {
  const product = a * b;
  if (Number.isSafeInteger(product)) {
    const magnitude = Math.abs(product);
    let q = Math.floor(magnitude / den);
    if (!down && (magnitude - q * den) * 2 >= den) q++;
    return product < 0 ? -q : q;
  }
  const p = BigInt(a) * BigInt(b);
  const d = BigInt(den);
  const magnitude = p < 0n ? -p : p;
  let q = magnitude / d;
  if (!down && (magnitude % d) * 2n >= d) q++;
  return Number(p < 0n ? -q : q);
}
