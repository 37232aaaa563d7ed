import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';

const d = (s: string) => Decimal.from(s);

describe('Decimal', () => {
  it('parses the venue formats and rejects everything else', () => {
    expect(d('90755.3').toString()).toBe('90755.3');
    expect(d('0.010000').toString()).toBe('0.01');
    expect(d('-34.55300000').toString()).toBe('-34.553');
    expect(d('0.').toString()).toBe('0');
    expect(d('09').toString()).toBe('9');
    expect(d('10000999657.8927028500000000').toString()).toBe('10000999657.89270285');
    for (const bad of ['', ' 1', '1e-7', 'NaN', 'Infinity', '.5', '1.2.3', '+1', '0x10']) expect(Decimal.parse(bad)).toBeNull();
  });

  it('adds, subtracts and multiplies exactly where floats do not', () => {
    expect(d('0.1').add(d('0.2')).toString()).toBe('0.3');
    expect(d('1').sub(d('0.9')).toString()).toBe('0.1');
    expect(d('85596.5').mul(d('0.01')).mul(d('0.0006')).toString()).toBe('0.513579');
    expect(d('123456789012345678.9').add(d('0.1')).toString()).toBe('123456789012345679');
  });

  it('compares across scales', () => {
    expect(d('1.50').eq(d('1.5'))).toBe(true);
    expect(d('-0.01').lt(Decimal.ZERO)).toBe(true);
    expect(d('2').gt(d('1.999999999999'))).toBe(true);
  });

  it('divides with explicit rounding', () => {
    expect(d('0.10476').div(d('10'), 8).toString()).toBe('0.010476');
    expect(d('2').div(d('3'), 4).toString()).toBe('0.6667');
    expect(d('2').div(d('3'), 4, 'down').toString()).toBe('0.6666');
    expect(d('-2').div(d('3'), 4, 'up').toString()).toBe('-0.6667');
    expect(() => d('1').div(Decimal.ZERO, 2)).toThrow(/division by zero/);
    // To tens or hundreds (a negative number of places): the same value whichever way it is worked out.
    expect(d('12345').div(d('1'), -2).toString()).toBe('12300');
    expect(d('12345').div(d('1'), -2).toNumber()).toBe(12300);
    expect(d('12345').div(d('1'), -2).eq(d('12300'))).toBe(true);
    expect(d('-12351').div(d('1'), -1, 'up').toString()).toBe('-12360');
  });

  it('rounds to a step and checks multiples', () => {
    expect(d('90755.37').roundToStep(d('0.1'), 'down').toString()).toBe('90755.3');
    expect(d('90755.37').roundToStep(d('0.5'), 'up').toString()).toBe('90755.5');
    expect(d('0.123456').roundToStep(d('0.0001'), 'half-up').toString()).toBe('0.1235');
    expect(d('1.5').isMultipleOf(d('0.5'))).toBe(true);
    expect(d('1.55').isMultipleOf(d('0.1'))).toBe(false);
  });

  it('formats without exponent notation, padded when asked', () => {
    expect(d('0.00000001').toString()).toBe('0.00000001');
    expect(d('1e0'.replace('e0', '')).toString(4)).toBe('1.0000');
    expect(d('2.345').toString(2)).toBe('2.35');
    expect(d('-0.5').toString(0)).toBe('-1');
    expect(JSON.stringify({ p: d('1.10') })).toBe('{"p":"1.1"}');
    expect(d('123.4500').toUnits(4)).toBe(1234500n);
    expect(() => d('1.23456').toUnits(2)).toThrow(/decimal places/);
    expect(d('90755.3').steps(d('0.1'))).toBe(907553);
    expect(d('0.0149').steps(d('0.005'), 'down')).toBe(2);
    expect(() => d('1').steps(d('0.0000000000000000001'))).toThrow(/too many steps/);
  });

  it('stepsOf counts steps as from().steps() does, and ofSteps turns them back', () => {
    const steps = ['0.1', '0.5', '0.01', '0.005', '1', '0.0001', '5'].map((x) => Decimal.from(x));
    let seed = 11;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    for (let k = 0; k < 3000; k++) {
      const step = steps[rnd(steps.length)]!;
      const int = String(rnd(200000));
      const frac = rnd(3) === 0 ? '' : `.${String(rnd(100000)).padStart(rnd(6) + 1, '0')}`;
      const text = `${int}${frac}`;
      for (const mode of ['half-up', 'down', 'up'] as const) {
        const want = Decimal.from(text).steps(step, mode);
        expect({ text, step: step.toString(), mode, n: Decimal.stepsOf(text, step, mode) }).toEqual({ text, step: step.toString(), mode, n: want });
        if (Decimal.from(text).roundToStep(step, mode).eq(Decimal.from(text))) expect(Decimal.ofSteps(want, step).eq(Decimal.from(text))).toBe(true);
      }
    }
    expect(() => Decimal.stepsOf('1e5', Decimal.from('0.1'))).toThrow(/not a decimal/);
    expect(() => Decimal.ofSteps(2 ** 53, Decimal.from('0.1'))).toThrow(/safe integer/);
  });

  it('agrees with plain BigInt arithmetic on random values, small and large, and stays normalised', () => {
    let seed = 7;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    const digits = (n: number) => Array.from({ length: n }, () => String(rnd(10))).join('');
    const text = () => `${rnd(4) === 0 ? '-' : ''}${digits(rnd(12) + 1)}${rnd(3) === 0 ? '' : `.${digits(rnd(14))}`}`;
    // The reference: a value as units of 10^-s, and its canonical text.
    const units = (t: string): [bigint, number] => {
      const [int, frac = ''] = t.replace('-', '').split('.');
      const v = BigInt(int! + frac);
      return [t.startsWith('-') ? -v : v, frac.length];
    };
    const canonical = ([v, s]: [bigint, number]): string => {
      while (s > 0 && v % 10n === 0n) {
        v /= 10n;
        s--;
      }
      const abs = (v < 0n ? -v : v).toString().padStart(s + 1, '0');
      const body = s > 0 ? `${abs.slice(0, abs.length - s)}.${abs.slice(abs.length - s)}` : abs;
      return v < 0n ? `-${body}` : body;
    };
    const at = ([v, s]: [bigint, number], to: number) => v * 10n ** BigInt(to - s);
    for (let k = 0; k < 4000; k++) {
      const [ta, tb] = [text(), text()];
      const [a, b] = [Decimal.from(ta), Decimal.from(tb)];
      const [ua, ub] = [units(ta), units(tb)];
      const s = Math.max(ua[1], ub[1]);
      const want = {
        a: canonical(ua),
        sum: canonical([at(ua, s) + at(ub, s), s]),
        diff: canonical([at(ua, s) - at(ub, s), s]),
        prod: canonical([ua[0] * ub[0], ua[1] + ub[1]]),
        cmp: at(ua, s) < at(ub, s) ? -1 : at(ua, s) > at(ub, s) ? 1 : 0,
      };
      const got = { a: a.toString(), sum: a.add(b).toString(), diff: a.sub(b).toString(), prod: a.mul(b).toString(), cmp: a.cmp(b) };
      expect({ ta, tb, ...got }).toEqual({ ta, tb, ...want });
      expect(a.eq(b)).toBe(want.cmp === 0);
      for (const x of [a, b, a.add(b), a.sub(b), a.mul(b), a.neg()]) expect(x.scale === 0 || x.mantissa % 10n !== 0n).toBe(true);
      if (!b.isZero()) {
        expect(a.isMultipleOf(b)).toBe(at(ua, s) % at(ub, s) === 0n);
        const mode = (['down', 'up', 'half-up'] as const)[rnd(3)]!;
        const q = a.div(b, 0, mode).toUnits(0);
        if (q <= BigInt(Number.MAX_SAFE_INTEGER) && q >= -BigInt(Number.MAX_SAFE_INTEGER)) expect(a.steps(b, mode)).toBe(Number(q));
        else expect(() => a.steps(b, mode)).toThrow(/too many steps/);
      }
      const places = rnd(9) - 4;
      expect(a.movePoint(places).toString()).toBe(canonical(places >= 0 ? [ua[0] * 10n ** BigInt(places), ua[1]] : [ua[0], ua[1] - places]));
      const n = rnd(2_000_000) - 1_000_000;
      expect(Decimal.ofSteps(n, b.abs()).toString()).toBe(canonical([BigInt(n) * (ub[0] < 0n ? -ub[0] : ub[0]), ub[1]]));
    }
    expect(Decimal.from('-0.000').toString()).toBe('0');
    expect(Decimal.from('0.50').eq(Decimal.from('0.5'))).toBe(true);
    expect(Decimal.from('123456789012345.6').toString()).toBe('123456789012345.6');
    expect(Decimal.from('9007199254740993').toString()).toBe('9007199254740993');
  });

  it('is exact on both sides of the safe-integer range: every operation matches BigInt arithmetic where plain numbers would round', () => {
    let seed = 29;
    const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) >>> 0) % n;
    const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
    // Mantissas near 2^53, near its square root (products cross it) and small ones, at scales 0 to 12.
    const mantissa = (): bigint => {
      const sign = rnd(3) === 0 ? -1n : 1n;
      switch (rnd(4)) {
        case 0:
          return sign * (SAFE - 5n + BigInt(rnd(12)));
        case 1:
          return sign * (94906265n + BigInt(rnd(2000)) - 1000n);
        case 2:
          return sign * (SAFE * 10n + BigInt(rnd(1000)));
        default:
          return sign * BigInt(rnd(100000));
      }
    };
    const ref = (m: bigint, s: number) => ({ m, s });
    type Ref = ReturnType<typeof ref>;
    const canonical = ({ m, s }: Ref): string => {
      while (s > 0 && m % 10n === 0n) {
        m /= 10n;
        s--;
      }
      const abs = (m < 0n ? -m : m).toString().padStart(s + 1, '0');
      const body = s > 0 ? `${abs.slice(0, abs.length - s)}.${abs.slice(abs.length - s)}` : abs;
      return m < 0n ? `-${body}` : body;
    };
    const at = (x: Ref, to: number) => x.m * 10n ** BigInt(to - x.s);
    const roundDiv = (num: bigint, den: bigint, mode: 'down' | 'up' | 'half-up'): bigint => {
      if (den < 0n) [num, den] = [-num, -den];
      const q = num / den;
      const r = num % den;
      if (r === 0n || mode === 'down') return q;
      const away = num < 0n ? q - 1n : q + 1n;
      if (mode === 'up') return away;
      return (r < 0n ? -r : r) * 2n >= den ? away : q;
    };
    for (let k = 0; k < 6000; k++) {
      const ra = ref(mantissa(), rnd(13));
      const rb = ref(mantissa(), rnd(13));
      const a = Decimal.of(ra.m, ra.s);
      const b = Decimal.of(rb.m, rb.s);
      const s = Math.max(ra.s, rb.s);
      const mode = (['down', 'up', 'half-up'] as const)[rnd(3)]!;
      const places = rnd(6);
      const want: Record<string, unknown> = {
        a: canonical(ra),
        sum: canonical(ref(at(ra, s) + at(rb, s), s)),
        diff: canonical(ref(at(ra, s) - at(rb, s), s)),
        prod: canonical(ref(ra.m * rb.m, ra.s + rb.s)),
        cmp: at(ra, s) < at(rb, s) ? -1 : at(ra, s) > at(rb, s) ? 1 : 0,
        neg: canonical(ref(-ra.m, ra.s)),
        moved: canonical(ref(ra.m * 10n ** BigInt(places), ra.s)),
        number: Number(canonical(ra)),
      };
      const got: Record<string, unknown> = {
        a: a.toString(),
        sum: a.add(b).toString(),
        diff: a.sub(b).toString(),
        prod: a.mul(b).toString(),
        cmp: a.cmp(b),
        neg: a.neg().toString(),
        moved: a.movePoint(places).toString(),
        number: a.toNumber(),
      };
      if (rb.m !== 0n) {
        const scale = rnd(9);
        // a / b to `scale` places: a·10^(sb+scale-sa) / b in units of 10^-scale.
        const shift = rb.s + scale - ra.s;
        const q = shift >= 0 ? roundDiv(ra.m * 10n ** BigInt(shift), rb.m, mode) : roundDiv(ra.m, rb.m * 10n ** BigInt(-shift), mode);
        want.div = canonical(ref(q, scale));
        got.div = a.div(b, scale, mode).toString();
        const step = rb.m < 0n ? ref(-rb.m, rb.s) : rb;
        const stepD = b.abs();
        want.rounded = canonical(ref(roundDiv(at(ra, s), at(step, s), mode) * at(step, s), s));
        got.rounded = a.roundToStep(stepD, mode).toString();
        want.multiple = ra.s > rb.s ? false : at(ra, s) % at(step, s) === 0n;
        got.multiple = a.isMultipleOf(stepD);
        const n = roundDiv(at(ra, s), at(rb, s), mode);
        want.steps = n > SAFE || n < -SAFE ? 'too many' : Number(n);
        try {
          got.steps = a.steps(b, mode);
        } catch (err) {
          got.steps = /too many steps/.test((err as Error).message) ? 'too many' : (err as Error).message;
        }
      }
      expect({ ra: canonical(ra), rb: canonical(rb), mode, ...got }).toEqual({ ra: canonical(ra), rb: canonical(rb), mode, ...want });
      expect(a.eq(b)).toBe(want.cmp === 0);
      expect(a.mantissa).toBe(Decimal.from(canonical(ra)).mantissa);
      for (const x of [a, a.add(b), a.sub(b), a.mul(b)]) expect(x.scale === 0 || x.mantissa % 10n !== 0n).toBe(true);
    }
  });
});
