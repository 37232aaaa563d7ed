// Prices derived from amount / size (spot fills with an empty fillPrice, futures F20 fills): exact whenever the
// quotient terminates, whatever the scales, and rounded at 18 places only when it cannot.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { quotient } from '../../../../src/exchange/live/parse.js';

const d = (s: string) => Decimal.from(s);

describe('quotient', () => {
  it('is exact when the quotient terminates, even beyond 12 places', () => {
    const cases: Array<[string, string, string]> = [
      ['2722.659', '0.03', '90755.3'],
      ['0.10476', '10', '0.010476'],
      ['1', '0.0016', '625'],
      ['1', '1024', '0.0009765625'],
      ['0.000000000000001', '8', '0.000000000000000125'],
      ['123456789.123456789', '0.000001', '123456789123456.789'],
      ['-5', '2', '-2.5'],
    ];
    for (const [a, b, q] of cases) {
      const r = quotient(d(a), d(b));
      expect([a, b, r.toString()]).toEqual([a, b, q]);
      expect(r.mul(d(b)).eq(d(a))).toBe(true);
    }
  });

  it('rounds half-up at 18 places when the quotient does not terminate', () => {
    expect(quotient(d('1'), d('3')).toString()).toBe('0.333333333333333333');
    expect(quotient(d('2'), d('3')).toString()).toBe('0.666666666666666667');
  });
});
