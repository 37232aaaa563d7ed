// Exact arithmetic for the report's books, which take every fill of a run: each amount a bigint count of 10^-scale
// at one scale for the whole run, chosen so that every product the books form is exact. The values are those
// Decimal gives (sums, exact products, quotients rounded half-up at a number of places as Decimal.div rounds them,
// text as Decimal.toString writes it), without an object and a normalisation per operation.
import { Decimal } from '../domain/decimal.js';

const POW10: bigint[] = [];
function pow10(n: number): bigint {
  let v = POW10[n];
  if (v === undefined) POW10[n] = v = 10n ** BigInt(n);
  return v;
}

/** num / den rounded half away from zero (Decimal's 'half-up'). */
function roundHalfUp(num: bigint, den: bigint): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den;
  const r = num % den;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice < den) return q;
  return num < 0n ? q - 1n : q + 1n;
}

/** A product the scale could not hold: the scale was chosen too small (a bug, never a rounding). */
export class InexactError extends Error {}

export class FixedPoint {
  private readonly unit: bigint;

  constructor(readonly scale: number) {
    this.unit = pow10(scale);
  }

  /**
   * The scale at which the books' products of amounts with at most `places` decimal places are exact: a quantity or
   * a price (`places`) times a price, a fee or an average cost (at most max(18, `places`): averages are divided out
   * to 18 places).
   */
  static forPlaces(places: number): FixedPoint {
    return new FixedPoint(Math.max(18, places) + places);
  }

  /** What turns an amount of this scale into one of `wider`'s (a scale at least this one's). */
  factorTo(wider: FixedPoint): bigint {
    if (wider.scale < this.scale) throw new RangeError(`scale ${wider.scale} is narrower than ${this.scale}`);
    return pow10(wider.scale - this.scale);
  }

  /** A Decimal as a count of units (exact: the scale is at least its places). */
  of(d: Decimal): bigint {
    if (d.scale > this.scale) throw new InexactError(`${d.toString()} has more than ${this.scale} decimal places`);
    return d.mantissa * pow10(this.scale - d.scale);
  }

  mul(a: bigint, b: bigint): bigint {
    const p = a * b;
    const q = p / this.unit;
    if (q * this.unit !== p) throw new InexactError(`a product beyond ${this.scale} decimal places`);
    return q;
  }

  /** a / b rounded half-up at `places` decimal places (Decimal.div(b, places)). */
  div(a: bigint, b: bigint, places: number): bigint {
    if (b === 0n) throw new RangeError('division by zero');
    return roundHalfUp(a * pow10(places), b) * pow10(this.scale - places);
  }

  /** The value as a Decimal. */
  decimal(a: bigint): Decimal {
    if (a === 0n) return Decimal.ZERO;
    // Trailing zero digits counted on the text (one conversion), taken off with one division.
    const digits = (a < 0n ? -a : a).toString();
    let zeros = 0;
    while (zeros < this.scale && digits.charCodeAt(digits.length - 1 - zeros) === 48) zeros++;
    return Decimal.of(zeros === 0 ? a : a / pow10(zeros), this.scale - zeros);
  }

  /** Decimal.toString(places) of the value: rounded half-up (or padded) to `places`; without, its shortest form. */
  text(a: bigint, places?: number): string {
    const neg = a < 0n;
    let digits = (neg ? -a : a).toString().padStart(this.scale + 1, '0');
    let whole = digits.slice(0, digits.length - this.scale);
    let frac = digits.slice(digits.length - this.scale);
    if (places === undefined) {
      let end = frac.length;
      while (end > 0 && frac.charCodeAt(end - 1) === 48) end--;
      frac = frac.slice(0, end);
    } else if (places < frac.length) {
      // Half-up, away from zero: the magnitude goes up when the first digit dropped is 5 or more.
      const up = frac.charCodeAt(places) >= 53;
      frac = frac.slice(0, places);
      if (up) {
        digits = (BigInt(whole + frac) + 1n).toString().padStart(places + 1, '0');
        whole = digits.slice(0, digits.length - places);
        frac = digits.slice(digits.length - places);
      }
    } else frac = frac.padEnd(places, '0');
    const text = frac.length > 0 ? `${whole}.${frac}` : whole;
    return neg && /[1-9]/.test(text) ? `-${text}` : text;
  }
}
