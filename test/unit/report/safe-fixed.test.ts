// The books' arithmetic in safe integers gives exactly what FixedPoint (BigInt) gives, or NaN: never a value that is
// not exact. Texts, the 18-place quotients written at fewer places, products, a holding's average cost, and sums that
// run past 2^53 (carried in BigInt) on values of every sign and size, those at the edge of the safe range included.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { putDigits, putInt, putText } from '../../../src/report/byte-text.js';
import { FixedPoint } from '../../../src/report/fixed-point.js';
import { BookScale, ExactSum, mulDiv, mulPow, SafeFixed, SafeTotal } from '../../../src/report/safe-fixed.js';
import { rng } from './random-run.js';

const MAX = Number.MAX_SAFE_INTEGER;

/** Seeded safe integers of every size (a few digits up to 2^53 - 1), some negative, some zero, some round. */
function integers(seed: number, n: number): number[] {
  const r = rng(seed);
  const out: number[] = [MAX, -MAX, MAX - 1, 2 ** 31, 2 ** 31 - 1, 1e9, 999_999_999, 1, -1, 0];
  while (out.length < n) {
    const digits = 1 + Math.floor(r() * 16);
    let x = Math.floor(r() * 10 ** digits);
    if (r() < 0.2) x = Math.floor(x / 10 ** Math.floor(r() * digits)) * 10 ** Math.floor(r() * 6);
    x = Math.min(x, MAX);
    out.push(r() < 0.3 ? -x : x);
  }
  return out;
}

/** `got` is `want`, or NaN; NaN when `want` is (not a whole safe integer). */
function exactOrNaN(got: number, want: number): boolean {
  if (got === got) expect(got).toBe(want);
  return got === got;
}

describe('SafeFixed', () => {
  const scales = [0, 1, 4, 8, 9, 12, 18];

  it('writes an amount as FixedPoint writes it: shortest, and to any number of places', () => {
    for (const scale of scales) {
      const sf = new SafeFixed(scale);
      const fx = new FixedPoint(scale);
      for (const a of integers(scale + 1, 600)) {
        for (const places of [undefined, 0, 1, 2, 8, 9, 12, 18, 20]) expect([a, places, sf.text(a, places)]).toEqual([a, places, fx.text(BigInt(a), places)]);
      }
    }
  });

  it('writes a quotient rounded at 18 places, then at fewer, as FixedPoint does (a divisor too large for digits by numbers included)', () => {
    const fx = new FixedPoint(18);
    const sf = new SafeFixed(9);
    const ns = integers(5, 500);
    const ds = integers(6, 500).map((d) => Math.abs(d) || 7);
    // Quotients that end in ...5 just beyond a place, and ...4999.. that round up at 18 places first.
    const cases: Array<[number, number]> = [
      [1, 8],
      [5, 16],
      [1, 3],
      [2, 3],
      [123456785, 1e9],
      [1234567849999999, 1e16 / 1],
      [999999999999, 1e12 + 1],
    ];
    for (let i = 0; i < ns.length; i++) cases.push([ns[i]!, ds[i]!]);
    for (const [n, d] of cases) {
      for (const places of [0, 2, 8, 17, 18])
        expect([n, d, places, sf.ratioText(n, d, places)]).toEqual([n, d, places, fx.text(fx.div(BigInt(n), BigInt(d), 18), places)]);
    }
  });

  it('holds decimals, multiplies and takes an average cost exactly, or gives NaN', () => {
    const r = rng(9);
    const big = new FixedPoint(40);
    /** How many came out as numbers: products, average costs. */
    let products = 0;
    let averages = 0;
    for (const scale of [4, 9, 12]) {
      const sf = new SafeFixed(scale);
      const k = 10n ** BigInt(40 - scale);
      for (let i = 0; i < 3000; i++) {
        const dec = (x: number) => Decimal.of(BigInt(x), Math.floor(r() * (scale + 1)));
        const [x, y] = integers(i * 7 + scale, 12).slice(10);
        const dx = dec(x!);
        const dy = dec(y!);
        const exact = (v: bigint) => (v % k === 0n && v / k <= BigInt(MAX) && v / k >= -BigInt(MAX) ? Number(v / k) : NaN);
        // (+ 0: a zero product may come out as -0, the same amount.)
        expect(sf.of(dx)).toBe(exact(big.of(dx)));
        const product = exact(big.mul(big.of(dx), big.of(dy)));
        if (exactOrNaN(sf.product(dx, dy) + 0, product)) products++;
        const a = sf.of(dx);
        if (a === a) exactOrNaN(sf.times(a, dy) + 0, product);
        // The average cost of `closing` of a holding of `held` that cost `cost`: 18-place quotient times closing.
        const cost = Math.abs(x!) || 1;
        // Half of them held in a size whose quotients end (a divisor of a power of ten).
        const held = r() < 0.5 ? 2 ** Math.floor(r() * 12) * 5 ** Math.floor(r() * 6) : Math.abs(y!) || 3;
        const closing = r() < 0.3 ? held : Math.max(1, Math.floor(held * r()));
        const got = sf.averageCost(cost, held, closing);
        const want = big.mul(big.div(BigInt(cost) * k, BigInt(held) * k, 18), BigInt(closing) * k);
        if (got === got) {
          expect(BigInt(got) * k).toBe(want);
          averages++;
        } else expect(closing === held && (BigInt(cost) * 10n ** 18n) % BigInt(held) === 0n && held <= MAX / 10).toBe(false);
        if (got !== got) {
          // NaN only when the quotient was rounded, the result is not whole or safe, or the divisor is too large to tell.
          const rounded = (BigInt(cost) * 10n ** 18n) % BigInt(held) !== 0n;
          expect(rounded || exact(want) !== exact(want) || held > MAX / 10).toBe(true);
        }
      }
    }
    // Both ways taken often: the numbers, and NaN for the BigInt path.
    expect(Math.min(products, averages)).toBeGreaterThan(1000);
    expect(Math.max(products, averages)).toBeLessThan(9000);
  });

  it('an exact quotient taken at its average gives the holding back; a rounded one gives NaN', () => {
    const sf = new SafeFixed(9);
    expect(sf.averageCost(9_000_010_000, 100_000, 100_000)).toBe(9_000_010_000);
    expect(sf.averageCost(9_000_010_000, 100_000, 50_000)).toBe(4_500_005_000);
    expect(sf.averageCost(1, 3, 3)).toBeNaN();
    expect(sf.averageCost(10, 3, 3)).toBeNaN();
    expect(sf.averageCost(MAX, 2, 1)).toBeNaN();
  });

  it('products and quotients beyond 2^53 before dividing are exact when the result is safe, NaN when it is not', () => {
    expect(mulPow(9e13, 1e5, 9)).toBe(9e9);
    expect(mulPow(2 ** 52, 10, 1)).toBe(2 ** 52);
    expect(mulPow(2 ** 52, 4, 0)).toBeNaN();
    expect(mulPow(3, 7, 1)).toBeNaN();
    expect(mulDiv(2 ** 52, 3, 6)).toBe(2 ** 51);
    expect(mulDiv(2 ** 52 + 1, 2 ** 20, 2 ** 21)).toBeNaN();
    expect(mulDiv(MAX, 2, 4)).toBeNaN();
    expect(mulDiv(-(2 ** 52), 10, 20)).toBe(-(2 ** 51));
    expect(mulPow(Number.NaN, 1, 0)).toBeNaN();
    expect(new SafeFixed(9).of(Decimal.from('90071992547.40993'))).toBeNaN();
    expect(new SafeFixed(9).of(Decimal.from('9007199.254740991'))).toBe(MAX);
    expect(new SafeFixed(19).of(Decimal.from('1'))).toBeNaN();
  });

  it('writes integers into bytes as String() does', () => {
    const buf = Buffer.alloc(64);
    for (const n of integers(3, 2000)) {
      expect(buf.toString('latin1', 0, putInt(buf, 0, n))).toBe(String(n));
      const m = Math.abs(n);
      expect(buf.toString('latin1', 0, putDigits(buf, 0, m, 18))).toBe(String(m).padStart(18, '0'));
    }
    expect(buf.toString('utf8', 0, putText(buf, 0, 'aü📈b'))).toBe('aü📈b');
  });
});

describe('sums past 2^53', () => {
  it('ExactSum and SafeTotal keep every unit, however the scale widens', () => {
    const xs = integers(17, 400);
    const sum = new ExactSum();
    const scale = new BookScale();
    scale.widen(2);
    const total = new SafeTotal();
    let want = 0n;
    xs.forEach((x, i) => {
      sum.add(i % 5 === 0 ? BigInt(x) : x);
      total.add(x, scale);
      want += BigInt(x);
    });
    expect(sum.value()).toBe(want);
    expect(total.value(scale)).toBe(want * 10n ** BigInt(scale.fx.scale - 2));
    // Widened past what a safe integer holds: the sum keeps its value in the finer units.
    scale.widen(9);
    total.widen(scale);
    total.add(1, scale);
    expect(total.value(scale)).toBe(want * 10n ** BigInt(scale.fx.scale - 2) + 10n ** BigInt(scale.fx.scale - 9));
  });
});
