// Order sizes from money: a quote amount, a share of equity, or the risk taken to a stop, each rounded down to the
// instrument's step, exactly (Decimal throughout; ratios given as floats are read as written).
import { Decimal } from '../domain/decimal.js';
import { equity } from '../domain/equity.js';
import type { Balance, Instrument, Position, Surface, Ticker } from '../domain/market.js';
import { decimalFromFloat } from './numbers.js';

type Sized = Pick<Instrument, 'symbol' | 'stepSize' | 'minSize' | 'maxSize'>;

const ONE_PERCENT = Decimal.of(1n, 2);

/**
 * `value` / `price` in whole steps, rounded down (never more than the money allows), capped at the instrument's
 * maxSize; null when that is below its minSize (or 0): too little money for one order.
 */
function stepsWorth(value: Decimal, price: Decimal, inst: Sized): Decimal | null {
  if (!price.gt(Decimal.ZERO)) throw new RangeError(`sizing for ${inst.symbol}: price ${price.toString()} is not above 0`);
  if (!value.gt(Decimal.ZERO)) return null;
  // Whole steps: value / (price × step), rounded down, exactly (a division to 0 decimal places).
  const steps = value.div(price.mul(inst.stepSize), 0, 'down');
  let size = steps.mul(inst.stepSize);
  if (inst.maxSize && size.gt(inst.maxSize)) size = inst.maxSize.roundToStep(inst.stepSize, 'down');
  return size.isZero() || size.lt(inst.minSize) ? null : size;
}

const ratioOf = (x: Decimal | number): Decimal => (typeof x === 'number' ? decimalFromFloat(x) : x);

/** The size `quote` (quote currency) buys at `price`: rounded down to the step; null below minSize. */
export function sizeFromQuote(quote: Decimal, price: Decimal, inst: Sized): Decimal | null {
  return stepsWorth(quote, price, inst);
}

/**
 * The size worth `percent` % of `equity` at `price` (the order's value, not its margin: for a leveraged share of
 * equity, multiply the percent by the leverage). Rounded down to the step; null below minSize.
 */
export function sizeFromEquity(equityQuote: Decimal, percent: Decimal | number, price: Decimal, inst: Sized): Decimal | null {
  return stepsWorth(equityQuote.mul(ratioOf(percent)).mul(ONE_PERCENT), price, inst);
}

/**
 * The size that loses `risk` (quote currency) if the price goes from `entry` to `stop`: risk / |entry − stop|,
 * rounded down to the step (never more risk than asked); null below minSize. Throws a RangeError when the stop is
 * the entry.
 */
export function sizeFromRisk(risk: Decimal, entry: Decimal, stop: Decimal, inst: Sized): Decimal | null {
  const distance = entry.sub(stop).abs();
  if (distance.isZero()) throw new RangeError(`sizing for ${inst.symbol}: the stop ${stop.toString()} is the entry`);
  return stepsWorth(risk, distance, inst);
}

/** What equityOf reads of a market update (api.ts's MarketUpdate is one). */
export interface PricedAccount {
  tickers: ReadonlyMap<string, Ticker>;
  positions: readonly Position[];
  balances: readonly Balance[];
}

/**
 * The account's equity in USDT as the update shows it (domain/equity.ts): USDT balances, other assets at their
 * USDT pair's last price when the update has its ticker, futures collateral plus the unrealised PnL of the update's
 * positions (the instance's symbols) at their last prices. One surface's, or both; null while a position's price is
 * unknown.
 */
export function equityOf(update: PricedAccount, instruments: ReadonlyMap<string, Instrument>, surface?: Surface): Decimal | null {
  const priceOf = (symbol: string) => update.tickers.get(symbol)?.last;
  const e = equity(update.balances as Balance[], update.positions as Position[], priceOf, instruments as Map<string, Instrument>);
  if (!e) return null;
  return surface ? (e.bySurface[surface] ?? Decimal.ZERO) : e.total;
}
