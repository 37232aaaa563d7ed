// The indicators strategies get (a curated set of the trading-signals library, which stays behind this module), and
// the small helpers that feed them a bar.
//
// Indicators are floats: they take `Decimal.toNumber()` of exact prices and give numbers. Nothing they give may reach
// an intent as it is: a price goes back through `priceFromFloat(x, inst, mode)` (rounded to the tick, an exact
// Decimal), a size through the sizing helpers (rounded down to the step).
//
// Each is used the same way: `const rsi = new RSI(14)`, then per closed bar `feed(rsi, bar)` (or
// `rsi.add(bar.close.toNumber())`), and `rsi.isStable ? rsi.getResult() : null`. Price indicators take a number
// (`feed`); those that need the bar's range or volume (ATR, ADX, StochasticOscillator, OBV, VWAP, CCI, …) take a
// candle of numbers (`feedCandle`, or `add(ohlcv(bar))`).
import type { Bar } from '../domain/candles.js';

export {
  ADX,
  ATR,
  BollingerBands,
  CCI,
  DEMA,
  DonchianChannels,
  EMA,
  HMA,
  KeltnerChannels,
  MACD,
  MFI,
  MOM,
  NATR,
  OBV,
  PSAR,
  RMA,
  ROC,
  RSI,
  SMA,
  StochasticOscillator,
  StochasticRSI,
  SuperTrend,
  TEMA,
  TR,
  VWAP,
  WilliamsR,
  WMA,
  WSMA,
  hasCrossedOver,
  hasCrossedUnder,
} from '#trading-signals';

/** A bar's figures as numbers, as candle indicators take them. */
export interface NumberCandle {
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** The bar's open, high, low, close and volume as numbers (`Decimal.toNumber()`). */
export function ohlcv(bar: Bar): NumberCandle {
  return { open: bar.open.toNumber(), high: bar.high.toNumber(), low: bar.low.toNumber(), close: bar.close.toNumber(), volume: bar.volume.toNumber() };
}

/** The bar's high, low and close as numbers (ATR, ADX, StochasticOscillator, CCI …). */
export function hlc(bar: Bar): { high: number; low: number; close: number } {
  return { high: bar.high.toNumber(), low: bar.low.toNumber(), close: bar.close.toNumber() };
}

/** Adds the bar's close to a price indicator (SMA, EMA, RSI, MACD, BollingerBands …); returns its result. */
export function feed<R>(indicator: { add(price: number): R }, bar: Bar): R {
  return indicator.add(bar.close.toNumber());
}

/** Adds the bar as a candle of numbers to a candle indicator (ATR, ADX, OBV, VWAP …); returns its result. */
export function feedCandle<R>(indicator: { add(candle: NumberCandle): R }, bar: Bar): R {
  return indicator.add(ohlcv(bar));
}
