// Floats back to exact decimals: the way from an indicator's number to a price or a ratio an intent may carry.
import { Decimal, type RoundingMode } from '../domain/decimal.js';
import type { Instrument } from '../domain/market.js';

const FLOAT_TEXT_RE = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The decimal a float is written as (its shortest round-trip form, `String(x)`: 3000.1 is 3000.1, not the binary
 * value 3000.09999999999990905…). Throws a RangeError for NaN and infinities.
 */
export function decimalFromFloat(x: number): Decimal {
  const m = Number.isFinite(x) ? FLOAT_TEXT_RE.exec(String(x)) : null;
  if (!m) throw new RangeError(`not a finite number: ${x}`);
  const frac = m[3] ?? '';
  const digits = BigInt(m[2]! + frac);
  return Decimal.of(m[1] ? -digits : digits, frac.length - Number(m[4] ?? 0));
}

/**
 * A price an intent may carry, from a float (an indicator's value, a band, a level): rounded to the instrument's
 * tick (`down` for a buy, `up` for a sell keeps a quote passive). Throws a RangeError for a value that is not a
 * finite number or does not round to a price above 0.
 */
export function priceFromFloat(x: number, inst: Pick<Instrument, 'tickSize' | 'symbol'>, mode: RoundingMode): Decimal {
  const price = decimalFromFloat(x).roundToStep(inst.tickSize, mode);
  if (!price.gt(Decimal.ZERO)) throw new RangeError(`price ${x} for ${inst.symbol} rounds to ${price.toString()}: not above 0`);
  return price;
}
