// Candles: the timeframes, the bar a strategy sees, and the venue's candle rows normalised, with the one rule that
// places a time in its bar (bars open on multiples of their length from the Unix epoch, UTC).
import type { Decimal } from './decimal.js';

/** The timeframes bars are built for (the venue's candle periods of a fixed length: no `1M`). */
export const TIMEFRAMES = ['1m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '1w'] as const;

export type Timeframe = (typeof TIMEFRAMES)[number];

const MINUTE_MS = 60_000;

/** Length of each timeframe in ms. */
export const TIMEFRAME_MS: Readonly<Record<Timeframe, number>> = {
  '1m': MINUTE_MS,
  '5m': 5 * MINUTE_MS,
  '15m': 15 * MINUTE_MS,
  '30m': 30 * MINUTE_MS,
  '1h': 60 * MINUTE_MS,
  '2h': 120 * MINUTE_MS,
  '4h': 240 * MINUTE_MS,
  '6h': 360 * MINUTE_MS,
  '8h': 480 * MINUTE_MS,
  '12h': 720 * MINUTE_MS,
  '1d': 1440 * MINUTE_MS,
  '1w': 7 * 1440 * MINUTE_MS,
};

export function isTimeframe(text: string): text is Timeframe {
  return Object.prototype.hasOwnProperty.call(TIMEFRAME_MS, text);
}

/** Weeks open on Monday 00:00 UTC: 4 days after the epoch (a Thursday). */
const WEEK_OFFSET_MS = 4 * 1440 * MINUTE_MS;

/**
 * The open time of the bar of `tf` that holds `timeMs`. Bars are aligned to the epoch (a `1d` bar opens at 00:00
 * UTC). A week: the epoch was a Thursday, the venue's weeks start on Monday 00:00 UTC, 4 days later.
 */
export function barOpenMs(timeMs: number, tf: Timeframe): number {
  const len = TIMEFRAME_MS[tf];
  const offset = tf === '1w' ? WEEK_OFFSET_MS : 0;
  return Math.floor((timeMs - offset) / len) * len + offset;
}

/**
 * Whether bars of `to` are made whole of bars of `from` (each `to` bar opens on a `from` boundary and spans a whole
 * number of them): 2h from 1h, 1w from 1d or 8h; not 12h from 8h. A timeframe is made of itself.
 */
export function isMadeOf(to: Timeframe, from: Timeframe): boolean {
  const fromMs = TIMEFRAME_MS[from];
  const toMs = TIMEFRAME_MS[to];
  return toMs % fromMs === 0 && (to !== '1w' || WEEK_OFFSET_MS % fromMs === 0);
}

/** One bar of one symbol and timeframe: exact prices (base-currency volume), open at `openMs`, up to `closeMs`. */
export interface Bar {
  symbol: string;
  timeframe: Timeframe;
  /** Inclusive start and exclusive end (openMs + the timeframe's length). */
  openMs: number;
  closeMs: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  /** Base-currency volume traded in the bar (0 for a bar with no trade: its prices are the previous close). */
  volume: Decimal;
  /** Trades the bar was built from (0 for a bar with no trade, or one taken from the venue's candles). */
  trades: number;
}

/** A series of bars wanted: one symbol's bars of one timeframe, with the closed bars kept (its lookback). */
export interface BarNeed {
  symbol: string;
  timeframe: Timeframe;
  lookback: number;
}

/** One candle row as the venue serves it (S10, F10, F11), normalised: open time, exact OHLC, volumes. */
export interface VenueCandle {
  openMs: number;
  open: Decimal;
  high: Decimal;
  low: Decimal;
  close: Decimal;
  /** Base-currency and quote-currency volume of the candle. */
  baseVolume: Decimal;
  quoteVolume: Decimal;
}

/** Which price a futures candle follows (F10/F11 `priceType`; mark and index only for futures). */
export type CandlePriceType = 'last' | 'mark' | 'index';
