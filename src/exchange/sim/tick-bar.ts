// A candle in the instrument's integers (prices in ticks, base volume in steps, quote volume in ticks × steps,
// exact), how two consecutive parts of one candle join, and the domain candle it stands for.
import type { VenueCandle } from '../../domain/candles.js';
import { Decimal } from '../../domain/decimal.js';

export interface TickBar {
  openMs: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volSteps: number;
  quoteTickSteps: bigint;
}

/** The candle made of `earlier` then `later` (consecutive parts of one period), opening at `openMs`. */
export function joinBars(openMs: number, earlier: TickBar, later: TickBar): TickBar {
  return {
    openMs,
    open: earlier.open,
    high: Math.max(earlier.high, later.high),
    low: Math.min(earlier.low, later.low),
    close: later.close,
    volSteps: earlier.volSteps + later.volSteps,
    quoteTickSteps: earlier.quoteTickSteps + later.quoteTickSteps,
  };
}

/** Folds `later` into `bar` in place (`later` comes after everything `bar` holds). */
export function extendBar(bar: TickBar, later: TickBar): void {
  if (later.high > bar.high) bar.high = later.high;
  if (later.low < bar.low) bar.low = later.low;
  bar.close = later.close;
  bar.volSteps += later.volSteps;
  bar.quoteTickSteps += later.quoteTickSteps;
}

/** The domain candle of a bar, at the instrument's tick and step. */
export function toVenueCandle(bar: TickBar, tickSize: Decimal, stepSize: Decimal): VenueCandle {
  return {
    openMs: bar.openMs,
    open: Decimal.ofSteps(bar.open, tickSize),
    high: Decimal.ofSteps(bar.high, tickSize),
    low: Decimal.ofSteps(bar.low, tickSize),
    close: Decimal.ofSteps(bar.close, tickSize),
    baseVolume: Decimal.ofSteps(bar.volSteps, stepSize),
    quoteVolume: Decimal.of(bar.quoteTickSteps * tickSize.mantissa * stepSize.mantissa, tickSize.scale + stepSize.scale),
  };
}
