// Exact decimal numbers for prices, sizes, fees and balances: a BigInt mantissa and a base-10 scale, never a float.
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
  /** value = mantissa / 10^scale; always normalised (no trailing zero digits in the mantissa when scale > 0). */
  private constructor(
    readonly mantissa: bigint,
    readonly scale: number,
  ) {}

  static readonly ZERO = new Decimal(0n, 0);

  static of(mantissa: bigint, scale = 0): Decimal {
    let m = mantissa;
    let s = scale;
    while (s > 0 && m % 10n === 0n) {
      m /= 10n;
      s -= 1;
    }
    if (s < 0) {
      m *= pow10(-s);
      s = 0;
    }
    return new Decimal(m, s);
  }

  /** `n` steps of `step` (n × step): a count of ticks or steps back to a price or size; the inverse of steps(). */
  static ofSteps(n: number, step: Decimal): Decimal {
    if (!Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
    return Decimal.of(BigInt(n) * step.mantissa, step.scale);
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

  add(o: Decimal): Decimal {
    const [a, b, s] = this.aligned(o);
    return Decimal.of(a + b, s);
  }
  sub(o: Decimal): Decimal {
    const [a, b, s] = this.aligned(o);
    return Decimal.of(a - b, s);
  }
  mul(o: Decimal): Decimal {
    return Decimal.of(this.mantissa * o.mantissa, this.scale + o.scale);
  }
  neg(): Decimal {
    return new Decimal(-this.mantissa, this.scale);
  }
  abs(): Decimal {
    return this.mantissa < 0n ? this.neg() : this;
  }
  cmp(o: Decimal): -1 | 0 | 1 {
    if (this.scale === o.scale) return this.mantissa < o.mantissa ? -1 : this.mantissa > o.mantissa ? 1 : 0;
    const [a, b] = this.aligned(o);
    return a < b ? -1 : a > b ? 1 : 0;
  }
  eq(o: Decimal): boolean {
    return this.cmp(o) === 0;
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
    if (step.mantissa === 0n) return false;
    const [a, b] = this.aligned(step);
    return a % b === 0n;
  }

  /** How many `step`s make this value, rounded, as a safe integer (price ticks, size steps, contracts). */
  steps(step: Decimal, mode: RoundingMode = 'half-up'): number {
    const n = this.div(step, 0, mode).toUnits(0);
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
    let m = this.mantissa;
    let s = this.scale;
    if (fixed !== undefined) {
      if (fixed < s) {
        m = roundDiv(m, pow10(s - fixed), 'half-up');
      } else {
        m *= pow10(fixed - s);
      }
      s = fixed;
    }
    const neg = m < 0n;
    let digits = (neg ? -m : m).toString();
    if (s > 0) {
      digits = digits.padStart(s + 1, '0');
      digits = `${digits.slice(0, digits.length - s)}.${digits.slice(digits.length - s)}`;
    }
    return neg && m !== 0n ? `-${digits}` : digits;
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
