// Exact arithmetic for the report's books in plain numbers while their amounts are small: each amount a safe integer
// count of 10^-scale (a scale of at most 18). An operation gives its exact result while that is a safe integer (and a
// whole count of units), NaN otherwise; NaN stays NaN through the operations after it, so a booking checks once, at
// its end, and takes the BigInt path (FixedPoint) instead when it got NaN. The values, roundings and texts are those
// FixedPoint (and so Decimal) gives.
import type { Decimal } from '../domain/decimal.js';
import { putDigits, putInt, putText } from './byte-text.js';
import { FixedPoint } from './fixed-point.js';

const MAX = Number.MAX_SAFE_INTEGER;
/** The largest remainder that can take one more digit (× 10) and stay safe. */
const MAX_TENTH = Math.floor(MAX / 10);
/** 10^n, exact (every power up to 10^22 is a double). */
export const P10: readonly number[] = Array.from({ length: 23 }, (_, n) => Number(`1e${n}`));
/** Places the books' quotients (averages, a fee's share) are rounded at. */
const QUOTIENT_PLACES = 18;
const FX18 = new FixedPoint(QUOTIENT_PLACES);

/**
 * `x` when it is a safe integer's value, NaN otherwise. (Of two safe integers' sum or product, the double is exact
 * while the exact result is safe, and beyond the safe range when it is not: the check needs no more.)
 */
export const safe = (x: number): number => (x <= MAX && x >= -MAX ? x : NaN);

/**
 * A Decimal's mantissa as a number: its value while it is a safe integer, NaN beyond. A Decimal that holds it as a
 * plain number gives it as `safeMantissa` (no BigInt made for it).
 */
function mantissa(d: Decimal): number {
  const m = (d as { readonly safeMantissa?: number }).safeMantissa;
  return m !== undefined ? m : safe(Number(d.mantissa));
}
export const add = (a: number, b: number): number => safe(a + b);
export const sub = (a: number, b: number): number => safe(a - b);

/** The greatest common divisor of two non-negative safe integers. */
function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** a × b / 10^k, exactly; NaN when that is not a whole safe integer (or a × b is not, nor once the factors' own powers of ten are taken out). */
export function mulPow(a: number, b: number, k: number): number {
  let p = a * b;
  if (!(p <= MAX && p >= -MAX)) {
    if (p !== p) return NaN;
    // Too large before the division: the factors' own powers of ten go first.
    while (k > 0 && a % 10 === 0) {
      a /= 10;
      k--;
    }
    while (k > 0 && b % 10 === 0) {
      b /= 10;
      k--;
    }
    p = safe(a * b);
  }
  if (k === 0) return p;
  const u = P10[k]!;
  return p % u === 0 ? p / u : NaN;
}

/** a × b / d (d > 0), exactly (NaN: not a whole safe integer). */
export function mulDiv(a: number, b: number, d: number): number {
  const p = a * b;
  if (p <= MAX && p >= -MAX) return p % d === 0 ? p / d : NaN;
  if (p !== p) return NaN;
  // Too large before the division: the divisor's factors taken out of each factor first.
  const g = gcd(a < 0 ? -a : a, d);
  a /= g;
  d /= g;
  const h = gcd(b < 0 ? -b : b, d);
  return d === h ? safe(a * (b / h)) : NaN;
}

/** Whether n / d (d > 0) has at most 18 decimal places (is its own 18-place quotient); false when unsure. */
function exactQuotient(n: number, d: number): boolean {
  let r = (n < 0 ? -n : n) % d;
  for (let places = 0; r !== 0; places++) {
    if (places === QUOTIENT_PLACES || r > MAX_TENTH) return false;
    r = (r * 10) % d;
  }
  return true;
}

/** Digits of a quotient after the point: one more than it is rounded at. */
const digits = new Uint8Array(QUOTIENT_PLACES + 1);

export class SafeFixed {
  /** 10^scale. */
  private readonly unit: number;
  /** Whether amounts can be held at all (a scale beyond 18: never, every booking takes the BigInt path). */
  private readonly usable: boolean;

  constructor(readonly scale: number) {
    this.usable = scale <= QUOTIENT_PLACES;
    this.unit = this.usable ? P10[scale]! : Number.NaN;
  }

  /** What turns an amount of this scale into one of `wider`'s (a scale at least this one's; NaN beyond 18 places). */
  factorTo(wider: SafeFixed): number {
    if (wider.scale < this.scale) throw new RangeError(`scale ${wider.scale} is narrower than ${this.scale}`);
    return wider.usable ? P10[wider.scale - this.scale]! : Number.NaN;
  }

  /** A Decimal as a count of units. */
  of(d: Decimal): number {
    const k = this.scale - d.scale;
    if (!this.usable || k < 0) return NaN;
    const m = mantissa(d);
    return k === 0 ? m : safe(m * P10[k]!);
  }

  /** x × y of two Decimals, in units. */
  product(x: Decimal, y: Decimal): number {
    if (!this.usable) return NaN;
    const a = mantissa(x);
    const b = mantissa(y);
    const k = this.scale - x.scale - y.scale;
    return k >= 0 ? safe(safe(a * b) * P10[k]!) : mulPow(a, b, -k);
  }

  /** An amount times a Decimal, in units. */
  times(a: number, d: Decimal): number {
    return mulPow(a, mantissa(d), d.scale);
  }

  /**
   * What `closing` of a holding of `held` (0 < closing <= held) that cost `cost` stands for at its average cost: the
   * 18-place quotient cost / held times closing, exactly (NaN when that quotient is rounded, or the product is not a
   * whole count of units).
   */
  averageCost(cost: number, held: number, closing: number): number {
    if (!exactQuotient(cost, held)) return NaN;
    return closing === held ? cost : mulDiv(cost, closing, held);
  }

  /** Decimal.toString(places) of the amount: rounded half-up (or padded) to `places`; without, its shortest form. */
  text(a: number, places?: number): string {
    return SCRATCH.toString('latin1', 0, this.put(SCRATCH, 0, a, places));
  }

  /** text(a, places), written into `buf` at `at` (at most 40 bytes); returns the offset after it. */
  put(buf: Buffer, at: number, a: number, places?: number): number {
    const neg = a < 0;
    const m = neg ? -a : a;
    const s = this.scale;
    let frac = m % this.unit;
    let whole = (m - frac) / this.unit;
    let digits = s;
    if (places === undefined) {
      if (frac === 0) digits = 0;
      else if (frac <= 0x7fffffff) {
        let f = frac | 0;
        for (let q = (f / 10) | 0; f === q * 10; q = (f / 10) | 0) {
          f = q;
          digits--;
        }
        frac = f;
      } else
        while (frac % 10 === 0) {
          frac /= 10;
          digits--;
        }
    } else if (places < s) {
      // Half-up, away from zero: the magnitude goes up when what is dropped is half a unit of the last place or more.
      const u = P10[s - places]!;
      const dropped = frac % u;
      frac = (frac - dropped) / u;
      if (dropped * 2 >= u) {
        frac++;
        if (frac === P10[places]) {
          frac = 0;
          whole++;
        }
      }
      digits = places;
    }
    if (neg && (whole !== 0 || frac !== 0)) buf[at++] = 45;
    at = putInt(buf, at, whole);
    const width = places ?? digits;
    if (width === 0) return at;
    buf[at++] = 46;
    at = putDigits(buf, at, frac, digits);
    for (let i = digits; i < width; i++) buf[at++] = 48;
    return at;
  }

  /**
   * The text of n / d (d > 0; a ratio of two amounts of this scale, or of any two safe integers) as FixedPoint gives
   * it: rounded half-up at 18 places, then written to `places` (at most 18), rounded half-up again.
   */
  ratioText(n: number, d: number, places: number): string {
    return SCRATCH.toString('latin1', 0, this.putRatio(SCRATCH, 0, n, d, places));
  }

  /** ratioText(n, d, places), written into `buf` at `at` (at most 40 bytes); returns the offset after it. */
  putRatio(buf: Buffer, at: number, n: number, d: number, places: number): number {
    if (d > MAX_TENTH) return putText(buf, at, FX18.text(FX18.div(BigInt(n), BigInt(d), QUOTIENT_PLACES), places));
    const neg = n < 0;
    const m = neg ? -n : n;
    let r = m % d;
    let whole = (m - r) / d;
    let len = 0;
    for (; r !== 0 && len <= QUOTIENT_PLACES; len++) {
      const x = r * 10;
      r = x % d;
      digits[len] = (x - r) / d;
    }
    digits.fill(0, len);
    // Rounded at 18 places, then at `places`: each carries up through the digits and may reach the whole part.
    if (digits[QUOTIENT_PLACES]! >= 5 && carry(QUOTIENT_PLACES)) whole++;
    if (places < QUOTIENT_PLACES && digits[places]! >= 5 && carry(places)) whole++;
    let zero = whole === 0;
    for (let i = 0; i < places; i++) if (digits[i] !== 0) zero = false;
    if (neg && !zero) buf[at++] = 45;
    at = putInt(buf, at, whole);
    if (places === 0) return at;
    buf[at++] = 46;
    for (let i = 0; i < places; i++) buf[at++] = 48 + digits[i]!;
    return at;
  }
}

/** Adds one at the last of the first `n` digits; whether it carried out of them. */
function carry(n: number): boolean {
  for (let i = n - 1; i >= 0; i--) {
    if (digits[i] !== 9) {
      digits[i]!++;
      return false;
    }
    digits[i] = 0;
  }
  return true;
}

/** Where texts are written before they are made strings. */
const SCRATCH = Buffer.alloc(64);

/**
 * The scales a run's books hold amounts at, for fills of at most `places` decimal places: safe integers at `places`
 * (SafeFixed), BigInt at the scale where every product the books form is exact (FixedPoint.forPlaces); both widen
 * when a fill carries more places than those before it. A book widens what it holds in BigInt first (bigFactor), then
 * its safe amounts (widened(), or bigBefore() for one that no longer fits).
 */
export class BookScale {
  places = 0;
  sf = new SafeFixed(0);
  fx = FixedPoint.forPlaces(0);
  /** Of the last widening: what amounts held in BigInt are multiplied by. */
  bigFactor = 1n;
  /** What turns a safe amount into BigInt units: now, and before the last widening. */
  private k = 10n ** BigInt(this.fx.scale);
  private kBefore = this.k;
  private safeFactor = 1;

  /** Moves to `places` (more than before). */
  widen(places: number): void {
    const sf = new SafeFixed(places);
    const fx = FixedPoint.forPlaces(places);
    this.safeFactor = this.sf.factorTo(sf);
    this.bigFactor = this.fx.factorTo(fx);
    this.kBefore = this.k;
    this.k = 10n ** BigInt(fx.scale - places);
    this.sf = sf;
    this.fx = fx;
    this.places = places;
  }

  /** A safe amount in BigInt units. */
  big(a: number): bigint {
    return BigInt(a) * this.k;
  }

  /** A safe amount held before the last widening, at the safe scale now (NaN: it does not fit). */
  widened(a: number): number {
    return safe(a * this.safeFactor);
  }

  /** A safe amount held before the last widening, in BigInt units now. */
  bigBefore(a: number): bigint {
    return BigInt(a) * this.kBefore * this.bigFactor;
  }
}

/** A running sum of amounts: in a safe integer while it fits, what did not carried in BigInt units beside it. */
export class SafeTotal {
  private small = 0;
  private large = 0n;

  /** Adds a safe amount (not NaN). */
  add(x: number, scale: BookScale): void {
    const s = this.small + x;
    if (s <= MAX && s >= -MAX) this.small = s;
    else {
      this.large += scale.big(this.small) + scale.big(x);
      this.small = 0;
    }
  }

  /** Adds an amount in BigInt units. */
  addBig(x: bigint): void {
    this.large += x;
  }

  /** After `scale` widened: the same sum in its new units. */
  widen(scale: BookScale): void {
    this.large *= scale.bigFactor;
    const s = scale.widened(this.small);
    if (s === s) this.small = s;
    else {
      this.large += scale.bigBefore(this.small);
      this.small = 0;
    }
  }

  /** The sum in BigInt units. */
  value(scale: BookScale): bigint {
    return scale.big(this.small) + this.large;
  }
}

/** An exact sum of integers: in a safe integer while it fits, what did not carried in a BigInt beside it. */
export class ExactSum {
  private small = 0;
  private large = 0n;

  add(x: number | bigint): void {
    if (typeof x === 'bigint') {
      this.large += x;
      return;
    }
    const s = this.small + x;
    if (s <= MAX && s >= -MAX) this.small = s;
    else {
      this.large += BigInt(this.small) + BigInt(x);
      this.small = 0;
    }
  }

  value(): bigint {
    return BigInt(this.small) + this.large;
  }
}
