// Exact decimal numbers for prices, sizes, fees and balances: a BigInt mantissa and a base-10 scale, never a float.
// Mantissas within the safe-integer range are normalised and parsed in plain numbers (exact there), which spares the
// BigInt allocations of the common case; the value and its text are the same either way.
export type RoundingMode = 'down' | 'up' | 'half-up';

const DECIMAL_RE = /^(-)?(\d+)(?:\.(\d*))?$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const POW10: bigint[] = [];
function pow10(n: number): bigint {
  let v = POW10[n];
  if (v === undefined) {
    v = 10n ** BigInt(n);
    POW10[n] = v;
  }
  return v;
}

export class Decimal {
  /** The plain text, once formatted (the value never changes). */
  #text: string | undefined = undefined;

  /** value = mantissa / 10^scale; always normalised (no trailing zero digits in the mantissa when scale > 0). */
  private constructor(
    readonly mantissa: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Decimal(0n, 0);

  static of(mantissa: bigint, scale = 0): Decimal {
    if (scale === 0) return new Decimal(mantissa, 0);
    if (scale < 0) return new Decimal(mantissa * pow10(-scale), 0);
    if (mantissa <= MAX_SAFE && mantissa >= -MAX_SAFE) {
      const n = Number(mantissa);
      return n % 10 !== 0 ? new Decimal(mantissa, scale) : Decimal.ofSafe(n, scale);
    }
    let m = mantissa;
    let s = scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s -= 1;
    }
    return new Decimal(m, s);
  }

  /** `n` (a safe integer) / 10^scale (scale >= 0), normalised in plain numbers (exact: each step divides a multiple of 10). */
  private static ofSafe(n: number, scale: number): Decimal {
    if (n === 0) return Decimal.ZERO;
    let s = scale;
    while (s > 0 && n % 10 === 0) {
      n /= 10;
      s -= 1;
    }
    return new Decimal(BigInt(n), s);
  }

  /** `n` steps of `step` (n × step): a count of ticks or steps back to a price or size; the inverse of steps(). */
  static ofSteps(n: number, step: Decimal): Decimal {
    if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
    const sm = step.mantissa;
    if (sm <= MAX_SAFE && sm >= -MAX_SAFE) {
      const product = n * Number(sm);
      if (Number.isSafeInteger(product)) return Decimal.ofSafe(product, step.scale);
    }
    return Decimal.of(BigInt(n) * sm, step.scale);
  }

  static fromInt(n: number | bigint): Decimal {
    if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
    return Decimal.of(BigInt(n));
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
      if (i === len && digits > 0 && digits <= 15) {
        const d = Decimal.ofSafe(n, dot < 0 ? 0 : len - dot - 1);
        return start === 1 ? d.neg() : d;
      }
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
    if (this.scale === other.scale) return [this.mantissa, other.mantissa, this.scale];
    if (this.scale > other.scale) return [this.mantissa, other.mantissa * pow10(this.scale - other.scale), this.scale];
    return [this.mantissa * pow10(other.scale - this.scale), other.mantissa, other.scale];
  }

  // Of two normalised values at different scales, the one at the larger scale ends in a digit other than 0 and the
  // other, aligned, in 0: their sum or difference is normalised already.
  add(o: Decimal): Decimal {
    if (o.mantissa === 0n) return this;
    if (this.mantissa === 0n) return o;
    const s = this.scale;
    const t = o.scale;
    if (s === t) return Decimal.of(this.mantissa + o.mantissa, s);
    return s > t ? new Decimal(this.mantissa + o.mantissa * pow10(s - t), s) : new Decimal(this.mantissa * pow10(t - s) + o.mantissa, t);
  }
  sub(o: Decimal): Decimal {
    if (o.mantissa === 0n) return this;
    const s = this.scale;
    const t = o.scale;
    if (s === t) return Decimal.of(this.mantissa - o.mantissa, s);
    return s > t ? new Decimal(this.mantissa - o.mantissa * pow10(s - t), s) : new Decimal(this.mantissa * pow10(t - s) - o.mantissa, t);
  }
  mul(o: Decimal): Decimal {
    return Decimal.of(this.mantissa * o.mantissa, this.scale + o.scale);
  }
  /** this × 10^places (places may be negative): the decimal point moved, exactly. */
  movePoint(places: number): Decimal {
    return Decimal.of(this.mantissa, this.scale - places);
  }
  neg(): Decimal {
    return this.mantissa === 0n ? this : new Decimal(-this.mantissa, this.scale);
  }
  abs(): Decimal {
    return this.mantissa < 0n ? this.neg() : this;
  }
  cmp(o: Decimal): -1 | 0 | 1 {
    let a = this.mantissa;
    let b = o.mantissa;
    const s = this.scale;
    const t = o.scale;
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
    // Normalised: equal values have equal scales.
    return this.scale === o.scale && this.mantissa === o.mantissa;
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
    return this.mantissa === 0n;
  }
  isNegative(): boolean {
    return this.mantissa < 0n;
  }

  /** this / o, rounded to `scale` decimal places. Throws on division by zero. */
  div(o: Decimal, scale: number, mode: RoundingMode = 'half-up'): Decimal {
    if (o.mantissa === 0n) throw new RangeError('division by zero');
    // (a/10^sa) / (b/10^sb) = a*10^(sb+scale-sa) / b, in units of 10^-scale
    const shift = o.scale + scale - this.scale;
    let num = this.mantissa;
    let den = o.mantissa;
    if (shift >= 0) num *= pow10(shift);
    else den *= pow10(-shift);
    return Decimal.of(roundDiv(num, den, mode), scale);
  }

  /** Rounds to a multiple of `step` (a positive decimal). */
  roundToStep(step: Decimal, mode: RoundingMode): Decimal {
    if (step.mantissa <= 0n) throw new RangeError(`step must be positive, got ${step.toString()}`);
    const [a, b, s] = this.aligned(step);
    return Decimal.of(roundDiv(a, b, mode) * b, s);
  }

  isMultipleOf(step: Decimal): boolean {
    const b = step.mantissa;
    if (b === 0n) return false;
    const s = this.scale;
    const t = step.scale;
    // A value at a larger scale than the step's has digits the step has not (normalised: its last one is not 0).
    if (s > t) return false;
    return (s === t ? this.mantissa : this.mantissa * pow10(t - s)) % b === 0n;
  }

  /** How many `step`s make this value, rounded, as a safe integer (price ticks, size steps, contracts). */
  steps(step: Decimal, mode: RoundingMode = 'half-up'): number {
    if (step.mantissa === 0n) throw new RangeError('division by zero');
    // this / step to 0 places, as div(step, 0, mode) works it out.
    const shift = step.scale - this.scale;
    const n = shift >= 0 ? roundDiv(this.mantissa * pow10(shift), step.mantissa, mode) : roundDiv(this.mantissa, step.mantissa * pow10(-shift), mode);
    if (n > MAX_SAFE || n < -MAX_SAFE) throw new RangeError(`${this.toString()} is too many steps of ${step.toString()} for an exact number`);
    return Number(n);
  }

  /**
   * `Decimal.from(text).steps(step, mode)` without building a Decimal when the answer is exact in plain
   * numbers (replayed data: millions of prices). Same result, same errors.
   */
  static stepsOf(text: string, step: Decimal, mode: RoundingMode = 'half-up'): number {
    if (step.mantissa > 0n && step.mantissa <= 1_000_000n && text.length <= 17 && SIMPLE_RE.test(text)) {
      const dot = text.indexOf('.');
      const frac = dot < 0 ? '' : text.slice(dot + 1);
      if (frac.length <= step.scale) {
        const digits = (dot < 0 ? text : text.slice(0, dot)) + frac + '0'.repeat(step.scale - frac.length);
        const units = Number(digits);
        const per = Number(step.mantissa);
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
    if (fixed === undefined) return (this.#text ??= format(this.mantissa, this.scale));
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
    if (this.scale <= 22 && this.mantissa <= MAX_EXACT && this.mantissa >= -MAX_EXACT) return Number(this.mantissa) / 10 ** this.scale;
    return Number(this.toString());
  }
}

/** `m` / 10^s in plain notation (no point when s <= 0: the digits of m). */
function format(m: bigint, s: number): string {
  if (s <= 0) return m.toString();
  const neg = m < 0n;
  let digits = (neg ? -m : m).toString();
  if (digits.length <= s) digits = digits.padStart(s + 1, '0');
  const cut = digits.length - s;
  const text = digits.slice(0, cut) + '.' + digits.slice(cut);
  return neg ? '-' + text : text;
}

const SIMPLE_RE = /^\d+(\.\d*)?$/;
const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

function roundDiv(num: bigint, den: bigint, mode: RoundingMode): bigint {
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const q = num / den; // truncates toward zero
  const r = num % den;
  if (r === 0n) return q;
  const neg = num < 0n;
  switch (mode) {
    case 'down': // toward zero
      return q;
    case 'up': // away from zero
      return neg ? q - 1n : q + 1n;
    case 'half-up': {
      const twice = (r < 0n ? -r : r) * 2n;
      if (twice >= den) return neg ? q - 1n : q + 1n;
      return q;
    }
  }
}
