// The integer arithmetic under Decimal: powers of ten, rounding division and plain-notation text, in BigInt and in
// plain numbers (exact for safe integers; the callers check the range and fall back to BigInt beyond it).
/** How a division or a step rounds its last digit (Decimal's, here where the rounding is done). */
export type RoundingMode = 'down' | 'up' | 'half-up';

const POW10: bigint[] = [];
export function pow10(n: number): bigint {
  let v = POW10[n];
  if (v === undefined) {
    v = 10n ** BigInt(n);
    POW10[n] = v;
  }
  return v;
}

/** 10^0 … 10^22: every one an exact double. */
export const POW10_NUM: number[] = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * n × 10^k for a safe integer n: exact whenever the result is a safe integer (both factors exact, the product
 * correctly rounded); a result beyond the safe range comes out unsafe (rounding is monotonic), and callers then
 * take the BigInt path. A k beyond 22 gives a non-safe answer for any n but 0.
 */
export function scaleUp(n: number, k: number): number {
  return k <= 22 ? n * POW10_NUM[k]! : n === 0 ? 0 : Number.POSITIVE_INFINITY;
}

/**
 * roundDiv for safe integers (den not 0): the remainder is exact (fmod), so is the quotient of num - r by den
 * (an integer, a safe one); q ± 1 may reach 2^53, still exact.
 */
export function roundDivSafe(num: number, den: number, mode: RoundingMode): number {
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const r = num % den;
  const q = (num - r) / den + 0; // + 0: no -0
  if (r === 0) return q;
  const neg = num < 0;
  switch (mode) {
    case 'down':
      return q;
    case 'up':
      return neg ? q - 1 : q + 1;
    case 'half-up':
      return (r < 0 ? -r : r) * 2 >= den ? (neg ? q - 1 : q + 1) : q;
  }
}

/** `m` / 10^s in plain notation (no point when s <= 0: the digits of m). */
export function format(m: bigint, s: number): string {
  const neg = m < 0n;
  return formatDigits(neg, (neg ? -m : m).toString(), s);
}

/** The digits of a mantissa's size, its sign and scale, in plain notation. */
export function formatDigits(neg: boolean, digits: string, s: number): string {
  if (s <= 0) return neg ? '-' + digits : digits;
  if (digits.length <= s) digits = digits.padStart(s + 1, '0');
  const cut = digits.length - s;
  const text = digits.slice(0, cut) + '.' + digits.slice(cut);
  return neg ? '-' + text : text;
}

export function roundDiv(num: bigint, den: bigint, mode: RoundingMode): bigint {
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
