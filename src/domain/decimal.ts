// Exact decimal numbers for prices, sizes, fees and balances: a BigInt mantissa and a base-10 scale, never a float.
// Mantissas within the safe-integer range are normalised and parsed in plain numbers (exact there), which spares the
// BigInt allocations of the common case; the value and its text are the same either way.
import { POW10_NUM, format, formatDigits, pow10, roundDiv, roundDivSafe, scaleUp, type RoundingMode } from './decimal-integers.js';

export type { RoundingMode };

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d*))?$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class Decimal {
  /** The plain text, once formatted (the value never changes). */
  #text: string | undefined = undefined;

  /**
   * value = mantissa / 10^scale; always normalised (no trailing zero digits in the mantissa when scale > 0). The
   * mantissa is held as a plain number while it is a safe integer (`big` null), as a BigInt beyond (`m` unused):
   * one form per value, so equal values hold equal fields.
   */
  private constructor(
    private readonly m: number,
    private readonly big: bigint | null,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Decimal(0, null, 0);

  /** The mantissa (value × 10^scale). */
  get mantissa(): bigint {
    return this.big ?? BigInt(this.m);
  }

  /** The mantissa as a plain number when it is a safe integer; undefined beyond (read `mantissa` then). */
  get safeMantissa(): number | undefined {
    return this.big === null ? this.m : undefined;
  }

  static of(mantissa: bigint, scale = 0): Decimal {
    if (scale < 0) {
      mantissa *= pow10(-scale);
      scale = 0;
    }
    if (mantissa <= MAX_SAFE && mantissa >= -MAX_SAFE) return Decimal.small(Number(mantissa), scale);
    let m = mantissa;
    let s = scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s -= 1;
    }
    return m <= MAX_SAFE && m >= -MAX_SAFE ? new Decimal(Number(m), null, s) : new Decimal(0, m, s);
  }

  /** `n` (a safe integer) / 10^scale (scale >= 0), normalised in plain numbers (exact: each step divides a multiple of 10). */
  private static small(n: number, scale: number): Decimal {
    if (n === 0) return Decimal.ZERO; // -0 too
    let s = scale;
    while (s > 0 && n % 10 === 0) {
      n /= 10;
      s -= 1;
    }
    return new Decimal(n, null, s);
  }

  /** An exact integer result `n` at `scale`: a safe one stays a number, a larger one (exact, e.g. 2^53) or a negative scale goes through BigInt. */
  private static exact(n: number, scale: number): Decimal {
    return Number.isSafeInteger(n) && scale >= 0 ? Decimal.small(n, scale) : Decimal.of(BigInt(n), scale);
  }

  /** `n` steps of `step` (n × step): a count of ticks or steps back to a price or size; the inverse of steps(). */
  static ofSteps(n: number, step: Decimal): Decimal {
    if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
    if (step.big === null) {
      const product = n * step.m;
      if (Number.isSafeInteger(product)) return Decimal.small(product, step.scale);
    }
    return Decimal.of(BigInt(n) * step.mantissa, step.scale);
  }

  static fromInt(n: number | bigint): Decimal {
    if (typeof n === 'number') {
      if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
      return Decimal.small(n, 0);
    }
    return Decimal.of(n);
  }

  /**
   * Parses a plain decimal string as the exchange sends it ("90755.3", "0.010000", "-34.553", "0.").
   * Returns null for anything else: "", exponent notation, whitespace, NaN, Infinity.
   */
  static parse(text: string): Decimal | null {
    // Up to 15 digits: read in a plain number, exactly; anything longer or unusual takes the pattern below.
    const len = text.length;
    if (len > 0 && len <= 16) {
      let i = text.charCodeAt(0) === 45 ? 1 : 0;
      const start = i;
      let n = 0;
      let digits = 0;
      let dot = -1;
      for (; i < len; i++) {
        const c = text.charCodeAt(i);
        if (c >= 48 && c <= 57) {
          n = n * 10 + (c - 48);
          digits++;
        } else if (c === 46 && dot < 0 && i > start) dot = i;
        else break;
      }
      if (i === len && digits > 0 && digits <= 15) return Decimal.small(start === 1 ? -n : n, dot < 0 ? 0 : len - dot - 1);
    }
    const m = DECIMAL_RE.exec(text);
    if (!m) return null;
    const frac = m[3] ?? '';
    const mant = BigInt((m[2] ?? '0') + frac);
    return Decimal.of(m[1] ? -mant : mant, frac.length);
  }

  /** Like parse, but throws a RangeError naming what it was given. */
  static from(text: string): Decimal {
    const d = Decimal.parse(text);
    if (d === null) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`);
    return d;
  }

  static isDecimalString(text: string): boolean {
    return DECIMAL_RE.test(text);
  }

  private aligned(other: Decimal): [bigint, bigint, number] {
    const a = this.mantissa;
    const b = other.mantissa;
    if (this.scale === other.scale) return [a, b, this.scale];
    if (this.scale > other.scale) return [a, b * pow10(this.scale - other.scale), this.scale];
    return [a * pow10(other.scale - this.scale), b, other.scale];
  }

  // Of two normalised values at different scales, the one at the larger scale ends in a digit other than 0 and the
  // other, aligned, in 0: their sum or difference is normalised already (and not 0).
  add(o: Decimal): Decimal {
    if (o.isZero()) return this;
    if (this.isZero()) return o;
    const s = this.scale;
    const t = o.scale;
    if (this.big === null && o.big === null) {
      if (s === t) {
        const r = this.m + o.m;
        if (Number.isSafeInteger(r)) return Decimal.small(r, s);
      } else if (s > t) {
        const r = this.m + scaleUp(o.m, s - t);
        if (Number.isSafeInteger(r)) return new Decimal(r, null, s);
      } else {
        const r = scaleUp(this.m, t - s) + o.m;
        if (Number.isSafeInteger(r)) return new Decimal(r, null, t);
      }
    }
    const a = this.mantissa;
    const b = o.mantissa;
    if (s === t) return Decimal.of(a + b, s);
    return s > t ? Decimal.of(a + b * pow10(s - t), s) : Decimal.of(a * pow10(t - s) + b, t);
  }
  sub(o: Decimal): Decimal {
    return o.isZero() ? this : this.add(o.neg());
  }
  mul(o: Decimal): Decimal {
    if (this.big === null && o.big === null) {
      const p = this.m * o.m;
      if (Number.isSafeInteger(p)) return Decimal.small(p, this.scale + o.scale);
    }
    return Decimal.of(this.mantissa * o.mantissa, this.scale + o.scale);
  }
  /** this × 10^places (places may be negative): the decimal point moved, exactly. */
  movePoint(places: number): Decimal {
    if (this.big === null) {
      if (places <= this.scale) return Decimal.small(this.m, this.scale - places);
      const r = scaleUp(this.m, places - this.scale);
      if (Number.isSafeInteger(r)) return Decimal.small(r, 0);
    }
    return Decimal.of(this.mantissa, this.scale - places);
  }
  neg(): Decimal {
    if (this.big !== null) return new Decimal(0, -this.big, this.scale);
    return this.m === 0 ? this : new Decimal(-this.m, null, this.scale);
  }
  abs(): Decimal {
    return this.isNegative() ? this.neg() : this;
  }
  cmp(o: Decimal): -1 | 0 | 1 {
    const s = this.scale;
    const t = o.scale;
    if (this.big === null && o.big === null) {
      let a = this.m;
      let b = o.m;
      if (s !== t) {
        if (s > t) b = scaleUp(b, s - t);
        else a = scaleUp(a, t - s);
      }
      // Safe integers compare exactly; an aligned value beyond them is larger in size than the other (exact) one.
      if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return a < b ? -1 : a > b ? 1 : 0;
    }
    let a = this.mantissa;
    let b = o.mantissa;
    if (s !== t) {
      // Different signs decide without aligning.
      const sa = a < 0n ? -1 : a > 0n ? 1 : 0;
      const sb = b < 0n ? -1 : b > 0n ? 1 : 0;
      if (sa !== sb) return sa < sb ? -1 : 1;
      if (s > t) b *= pow10(s - t);
      else a *= pow10(t - s);
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }
  eq(o: Decimal): boolean {
    // Normalised, one form per value: equal values have equal fields.
    return this.scale === o.scale && this.m === o.m && this.big === o.big;
  }
  gte(o: Decimal): boolean {
    return this.cmp(o) >= 0;
  }
  lte(o: Decimal): boolean {
    return this.cmp(o) <= 0;
  }
  lt(o: Decimal): boolean {
    return this.cmp(o) < 0;
  }
  gt(o: Decimal): boolean {
    return this.cmp(o) > 0;
  }
  isZero(): boolean {
    return this.big === null && this.m === 0;
  }
  isNegative(): boolean {
    return this.big === null ? this.m < 0 : this.big < 0n;
  }

  /** this / o, rounded to `scale` decimal places. Throws on division by zero. */
  div(o: Decimal, scale: number, mode: RoundingMode = 'half-up'): Decimal {
    if (o.isZero()) throw new RangeError('division by zero');
    // (a/10^sa) / (b/10^sb) = a*10^(sb+scale-sa) / b, in units of 10^-scale
    const shift = o.scale + scale - this.scale;
    if (this.big === null && o.big === null) {
      const num = shift >= 0 ? scaleUp(this.m, shift) : this.m;
      const den = shift >= 0 ? o.m : scaleUp(o.m, -shift);
      if (Number.isSafeInteger(num) && Number.isSafeInteger(den)) return Decimal.exact(roundDivSafe(num, den, mode), scale);
    }
    let num = this.mantissa;
    let den = o.mantissa;
    if (shift >= 0) num *= pow10(shift);
    else den *= pow10(-shift);
    return Decimal.of(roundDiv(num, den, mode), scale);
  }

  /** Rounds to a multiple of `step` (a positive decimal). */
  roundToStep(step: Decimal, mode: RoundingMode): Decimal {
    if (!(step.big === null ? step.m > 0 : step.big > 0n)) throw new RangeError(`step must be positive, got ${step.toString()}`);
    if (this.big === null && step.big === null) {
      const s = this.scale;
      const t = step.scale;
      const a = s >= t ? this.m : scaleUp(this.m, t - s);
      const b = s >= t ? scaleUp(step.m, s - t) : step.m;
      if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
        const r = roundDivSafe(a, b, mode) * b;
        if (Number.isSafeInteger(r)) return Decimal.small(r, s >= t ? s : t);
      }
    }
    const [a, b, s] = this.aligned(step);
    return Decimal.of(roundDiv(a, b, mode) * b, s);
  }

  isMultipleOf(step: Decimal): boolean {
    if (step.isZero()) return false;
    const s = this.scale;
    const t = step.scale;
    // A value at a larger scale than the step's has digits the step has not (normalised: its last one is not 0).
    if (s > t) return false;
    if (this.big === null && step.big === null) {
      const a = scaleUp(this.m, t - s);
      if (Number.isSafeInteger(a)) return a % step.m === 0;
    }
    return (s === t ? this.mantissa : this.mantissa * pow10(t - s)) % step.mantissa === 0n;
  }

  /** How many `step`s make this value, rounded, as a safe integer (price ticks, size steps, contracts). */
  steps(step: Decimal, mode: RoundingMode = 'half-up'): number {
    if (step.isZero()) throw new RangeError('division by zero');
    // this / step to 0 places, as div(step, 0, mode) works it out.
    const shift = step.scale - this.scale;
    if (this.big === null && step.big === null) {
      const num = shift >= 0 ? scaleUp(this.m, shift) : this.m;
      const den = shift >= 0 ? step.m : scaleUp(step.m, -shift);
      if (Number.isSafeInteger(num) && Number.isSafeInteger(den)) {
        const q = roundDivSafe(num, den, mode);
        if (Number.isSafeInteger(q)) return q;
      }
    }
    const n = shift >= 0 ? roundDiv(this.mantissa * pow10(shift), step.mantissa, mode) : roundDiv(this.mantissa, step.mantissa * pow10(-shift), mode);
    if (n > MAX_SAFE || n < -MAX_SAFE) throw new RangeError(`${this.toString()} is too many steps of ${step.toString()} for an exact number`);
    return Number(n);
  }

  /**
   * `Decimal.from(text).steps(step, mode)` without building a Decimal when the answer is exact in plain
   * numbers (replayed data: millions of prices). Same result, same errors.
   */
  static stepsOf(text: string, step: Decimal, mode: RoundingMode = 'half-up'): number {
    const per = step.big === null ? step.m : 0;
    if (per > 0 && per <= 1_000_000 && text.length <= 17 && SIMPLE_RE.test(text)) {
      const dot = text.indexOf('.');
      const frac = dot < 0 ? '' : text.slice(dot + 1);
      if (frac.length <= step.scale) {
        const digits = (dot < 0 ? text : text.slice(0, dot)) + frac + '0'.repeat(step.scale - frac.length);
        const units = Number(digits);
        if (digits.length <= 15 && units % per === 0) return units / per;
      }
    }
    return Decimal.from(text).steps(step, mode);
  }

  /** The value as an integer count of 10^-scale units (e.g. ticks); throws if that would lose digits. */
  toUnits(scale: number): bigint {
    if (this.scale > scale) throw new RangeError(`${this.toString()} has more than ${scale} decimal places`);
    return this.mantissa * pow10(scale - this.scale);
  }

  /** Plain decimal notation, never exponent notation; `fixed` pads (or rounds half-up) to that many places. */
  toString(fixed?: number): string {
    if (fixed === undefined)
      return (this.#text ??= this.big === null ? formatDigits(this.m < 0, String(this.m < 0 ? -this.m : this.m), this.scale) : format(this.big, this.scale));
    let m = this.mantissa;
    const s = this.scale;
    if (fixed < s) m = roundDiv(m, pow10(s - fixed), 'half-up');
    else m *= pow10(fixed - s);
    return format(m, fixed);
  }

  toJSON(): string {
    return this.toString();
  }

  /** For indicators, screens and display only: never for prices, sizes, fees or balances that reach an order. */
  toNumber(): number {
    // Both operands exact doubles: the quotient is correctly rounded, the same double as parsing the text.
    if (this.big === null && this.scale <= 22) return this.m / POW10_NUM[this.scale]!;
    return Number(this.toString());
  }
}

const SIMPLE_RE = /^\d+(\.\d*)?$/;
