// The seeded past of a synthetic market: 1-minute bars before the market's first tick, so candle reads reaching
// back (F11; F10 and S10 rows before the start) find a history. It is a random walk in integer ticks generated
// backwards from the first price, pulled gently towards it (so a year back stays within a band of it rather than
// wandering off to nothing), one UTC day at a time, each day from its own stream of the seed and the symbol:
// a day is the same whenever (and however often) it is generated, so only the days' summaries are kept for good
// and their minutes in a small cache. Larger bars are aggregated from the minutes, so every timeframe agrees.
import { Prng, deriveSeed } from '../../util/prng.js';
import { extendBar, type TickBar } from './tick-bar.js';

const MINUTE_MS = 60_000;
const DAY_MS = 1440 * MINUTE_MS;
/** How far back the past reaches, in days before the start's day. */
export const PAST_DAYS = 400;
/** Days whose minutes are kept generated (about 2 MB per symbol at most). */
const CACHED_DAYS = 32;
/** Quote sums are folded into a bigint above this (a minute's quote stays far below the safe-integer range). */
const FOLD_AT = 2 ** 50;
/** Each minute closes 1/PULL_MINUTES of its distance to the first price (a distance halves in about 1000 minutes). */
const PULL_MINUTES = 1440;

export interface SyntheticPastOptions {
  seed: number;
  symbol: string;
  /** Time of the market's first tick, and its last price then (ticks): the past ends there. */
  startMs: number;
  firstTicks: number;
  /** Volatility per market tick (basis points) and market ticks per minute: the past moves like the market. */
  volBps: number;
  ticksPerMinute: number;
  /** The instrument's minimum order size in steps (trade sizes are multiples of it). */
  minSteps: number;
}

/** One day's minutes (column arrays, index = minute from `startMs`). */
interface DayBars {
  startMs: number;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  vol: Float64Array;
  quote: Float64Array;
}

export class SyntheticPast {
  /** The past holds the minutes opening before this (the minute of the first tick). */
  readonly endMs: number;
  /** The first minute it holds. */
  readonly beginMs: number;
  private readonly dayZeroMs: number;
  private readonly volPerMinute: number;
  /** Summary of each day generated so far, by day index (0: the start's day up to endMs; 1: the day before...). */
  private readonly summaries: TickBar[] = [];
  private readonly cache = new Map<number, DayBars>();

  constructor(private readonly opts: SyntheticPastOptions) {
    this.endMs = Math.floor(opts.startMs / MINUTE_MS) * MINUTE_MS;
    this.dayZeroMs = Math.floor(this.endMs / DAY_MS) * DAY_MS;
    this.beginMs = this.dayZeroMs - PAST_DAYS * DAY_MS;
    this.volPerMinute = (opts.volBps * Math.sqrt(Math.max(1, opts.ticksPerMinute))) / 10_000;
  }

  /** The minutes opening in [fromMs, toMs) aggregated into one bar opening at `openMs`; null when none is held. */
  aggregate(openMs: number, fromMs: number, toMs: number): TickBar | null {
    const from = Math.max(fromMs, this.beginMs);
    const to = Math.min(toMs, this.endMs);
    if (from >= to) return null;
    let out: TickBar | null = null;
    // Oldest day first: the bar's open is its first minute's.
    for (let day = this.dayOf(from); day >= this.dayOf(to - 1); day--) {
      const [dayStart, dayEnd] = this.dayBounds(day);
      const part = from <= dayStart && to >= dayEnd ? this.summary(day) : this.minutes(day, Math.max(from, dayStart), Math.min(to, dayEnd));
      if (!part) continue;
      if (out) extendBar(out, part);
      else out = { ...part, openMs };
    }
    return out;
  }

  /** The day index holding a minute before endMs. */
  private dayOf(timeMs: number): number {
    return timeMs >= this.dayZeroMs ? 0 : Math.floor((this.dayZeroMs - timeMs - 1) / DAY_MS) + 1;
  }

  private dayBounds(day: number): [number, number] {
    return day === 0 ? [this.dayZeroMs, this.endMs] : [this.dayZeroMs - day * DAY_MS, this.dayZeroMs - (day - 1) * DAY_MS];
  }

  private summary(day: number): TickBar | null {
    this.ensure(day);
    const s = this.summaries[day]!;
    return s.volSteps < 0 ? null : s;
  }

  /** The minutes of one day opening in [fromMs, toMs), aggregated. */
  private minutes(day: number, fromMs: number, toMs: number): TickBar | null {
    this.ensure(day);
    const bars = this.day(day);
    const first = Math.ceil((fromMs - bars.startMs) / MINUTE_MS);
    const last = Math.ceil((toMs - bars.startMs) / MINUTE_MS);
    if (first >= last) return null;
    return sumMinutes(bars, first, last, fromMs);
  }

  /** Generates the days up to `day` in order (each ends where the next one, in time, opens). */
  private ensure(day: number): void {
    while (this.summaries.length <= day) this.generate(this.summaries.length);
  }

  /** A generated day's minutes: from the cache, or generated again (the same bars). */
  private day(day: number): DayBars {
    return this.cache.get(day) ?? this.generate(day);
  }

  /** Generates day `day` backwards from the close it ends at (the first price, or the next day's open). */
  private generate(day: number): DayBars {
    const [startMs, endMs] = this.dayBounds(day);
    const n = (endMs - startMs) / MINUTE_MS;
    const bars: DayBars = {
      startMs,
      open: new Float64Array(n),
      high: new Float64Array(n),
      low: new Float64Array(n),
      close: new Float64Array(n),
      vol: new Float64Array(n),
      quote: new Float64Array(n),
    };
    const rng = new Prng(deriveSeed(this.opts.seed, `${this.opts.symbol}/past/${day}`));
    let close = day === 0 ? this.opts.firstTicks : this.summaries[day - 1]!.open;
    // An empty day (the start on a day boundary) is marked by a negative volume; it opens where the past ends.
    const summary: TickBar = { openMs: startMs, open: close, high: close, low: close, close, volSteps: -1, quoteTickSteps: 0n };
    for (let k = n - 1; k >= 0; k--) {
      const vol = Math.max(1, Math.floor(close * this.volPerMinute));
      // Irwin-Hall: the sum of four uniforms, centred: roughly normal with unit variance.
      const z = ((rng.u32() + rng.u32() + rng.u32() + rng.u32()) / 4294967296 - 2) * 1.7320508075688772;
      const open = Math.max(10, close - Math.round(z * vol) + Math.round((this.opts.firstTicks - close) / PULL_MINUTES));
      const wick = Math.floor(vol / 2) + 1;
      const high = Math.max(open, close) + rng.below(wick);
      const low = Math.max(1, Math.min(open, close) - rng.below(wick));
      const volSteps = this.opts.minSteps * this.opts.ticksPerMinute * (150 + rng.below(201));
      bars.open[k] = open;
      bars.high[k] = high;
      bars.low[k] = low;
      bars.close[k] = close;
      bars.vol[k] = volSteps;
      // The minute's trades at its typical price: an integer, so the quote volume stays exact.
      bars.quote[k] = volSteps * Math.floor((open + high + low + close) / 4);
      close = open;
    }
    if (this.summaries.length === day) this.summaries.push(n > 0 ? sumMinutes(bars, 0, n, startMs) : summary);
    this.cache.set(day, bars);
    if (this.cache.size > CACHED_DAYS) this.cache.delete(this.cache.keys().next().value!);
    return bars;
  }
}

/** The minutes [first, last) of a day in one bar opening at `openMs` (quote sums folded into a bigint rarely). */
function sumMinutes(bars: DayBars, first: number, last: number, openMs: number): TickBar {
  let high = 0;
  let low = Number.POSITIVE_INFINITY;
  let volSteps = 0;
  let quote = 0;
  let quoteFolded = 0n;
  for (let k = first; k < last; k++) {
    if (bars.high[k]! > high) high = bars.high[k]!;
    if (bars.low[k]! < low) low = bars.low[k]!;
    volSteps += bars.vol[k]!;
    quote += bars.quote[k]!;
    if (quote > FOLD_AT) {
      quoteFolded += BigInt(quote);
      quote = 0;
    }
  }
  return { openMs, open: bars.open[first]!, high, low, close: bars.close[last - 1]!, volSteps, quoteTickSteps: quoteFolded + BigInt(quote) };
}
