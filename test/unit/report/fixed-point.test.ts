// The report's fixed-point arithmetic gives exactly what Decimal gives: the same sums, products, quotients (rounded
// half-up at the places asked for) and text, on values of every sign and number of places.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import { FixedPoint, InexactError } from '../../../src/report/fixed-point.js';

/** A seeded stream of decimals with 0–8 places, some of them negative or zero. */
function decimals(seed: number, n: number): Decimal[] {
  let x = seed >>> 0;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
  const out: Decimal[] = [];
  for (let i = 0; i < n; i++) {
    const places = next() % 9;
    const digits = BigInt(next() % 1_000_000) * BigInt(next() % 100_000) + BigInt(next() % 10);
    out.push(Decimal.of(next() % 4 === 0 ? -digits : next() % 50 === 0 ? 0n : digits, places));
  }
  return out;
}

describe('FixedPoint', () => {
  const fx = FixedPoint.forPlaces(8);
  const xs = decimals(7, 400);
  const ys = decimals(11, 400);

  it('holds a decimal and gives its text back, plain and to any number of places', () => {
    for (const x of xs) {
      expect(fx.text(fx.of(x))).toBe(x.toString());
      for (const places of [0, 1, 2, 8, 12]) expect(fx.text(fx.of(x), places)).toBe(x.toString(places));
      expect(fx.decimal(fx.of(x)).eq(x)).toBe(true);
      expect(fx.decimal(fx.of(x)).scale).toBe(x.scale);
    }
  });

  it('adds, multiplies and divides as Decimal does', () => {
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      const y = ys[i]!;
      expect(fx.text(fx.of(x) + fx.of(y))).toBe(x.add(y).toString());
      expect(fx.text(fx.of(x) - fx.of(y))).toBe(x.sub(y).toString());
      expect(fx.text(fx.mul(fx.of(x), fx.of(y)))).toBe(x.mul(y).toString());
      if (y.isZero()) continue;
      for (const places of [0, 4, 18]) expect(fx.text(fx.div(fx.of(x), fx.of(y), places))).toBe(x.div(y, places).toString());
      // An 18-place quotient times an amount of 8 places: what the books form.
      const avg = fx.div(fx.of(x), fx.of(y), 18);
      expect(fx.text(fx.mul(avg, fx.of(y)), 8)).toBe(x.div(y, 18).mul(y).toString(8));
    }
  });

  it('refuses what its scale cannot hold exactly', () => {
    expect(() => fx.of(Decimal.of(1n, 27))).toThrow(InexactError);
    const small = new FixedPoint(2);
    expect(() => small.mul(small.of(Decimal.from('0.01')), small.of(Decimal.from('0.01')))).toThrow(InexactError);
    expect(() => fx.div(1n, 0n, 2)).toThrow(RangeError);
  });
});
