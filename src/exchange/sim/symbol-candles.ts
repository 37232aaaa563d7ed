// One symbol's candles in the simulator, for every timeframe: built from its own market ticks (each tick: the last
// price, the trade size), kept per timeframe up to a bound, and continued backwards by the market's seeded past
// (synthetic markets; a replay has none before its first record). Only the forming minute moves on a tick; a
// minute once complete is folded into the bars of the larger timeframes, so they agree with the minutes.
import { TIMEFRAMES, TIMEFRAME_MS, barOpenMs, type Timeframe } from '../../domain/candles.js';
import type { SyntheticPast } from './synthetic-past.js';
import { extendBar, joinBars, type TickBar } from './tick-bar.js';

/** Rows the simulator's S10 serves at most: the venue documents no maximum and served about 300 in a live probe. */
export const SPOT_CANDLE_ROWS = 300;

const MINUTE_MS = TIMEFRAME_MS['1m'];
const WEEK_MS = TIMEFRAME_MS['1w'];
/** The quote volume of the forming minute is folded into a bigint above this (well inside the safe range). */
const FOLD_AT = 2 ** 50;
const LARGER: readonly Timeframe[] = TIMEFRAMES.filter((tf) => tf !== '1m');

/** Complete bars kept per timeframe: 1000 (F10's largest page), and at least a week of them. */
function keptBars(tf: Timeframe): number {
  return Math.max(1000, Math.ceil(WEEK_MS / TIMEFRAME_MS[tf]));
}

export class SymbolCandles {
  // The forming minute (openMs -1: no tick yet).
  private minuteOpenMs = -1;
  private open = 0;
  private high = 0;
  private low = 0;
  private close = 0;
  private volSteps = 0;
  private quote = 0;
  private quoteFolded = 0n;
  /** Complete bars per timeframe, oldest first. */
  private readonly complete = new Map<Timeframe, TickBar[]>(TIMEFRAMES.map((tf) => [tf, []]));
  /** Per larger timeframe, its forming bar made of complete minutes. */
  private readonly forming = new Map<Timeframe, TickBar>();
  /** Timeframes whose oldest complete bars were dropped: their bars no longer join the past. */
  private readonly trimmed = new Set<Timeframe>();

  constructor(private readonly past: SyntheticPast | null) {}

  /** Applies one tick: the market's last price (ticks) and trade size (steps) at `timeMs`. */
  onTick(timeMs: number, lastTicks: number, sizeSteps: number): void {
    if (timeMs >= this.minuteOpenMs + MINUTE_MS || this.minuteOpenMs < 0) {
      if (this.minuteOpenMs >= 0) this.closeMinute();
      this.minuteOpenMs = barOpenMs(timeMs, '1m');
      this.open = this.high = this.low = lastTicks;
      this.volSteps = 0;
      this.quote = 0;
      this.quoteFolded = 0n;
    }
    if (lastTicks > this.high) this.high = lastTicks;
    if (lastTicks < this.low) this.low = lastTicks;
    this.close = lastTicks;
    this.volSteps += sizeSteps;
    this.quote += lastTicks * sizeSteps;
    if (this.quote > FOLD_AT) {
      this.quoteFolded += BigInt(this.quote);
      this.quote = 0;
    }
  }

  /** The newest `limit` bars of `tf`, newest first (the forming one first), reaching into the seeded past. */
  latest(tf: Timeframe, limit: number): TickBar[] {
    const out: TickBar[] = [];
    for (const bar of this.newestFirst(tf, Number.POSITIVE_INFINITY)) {
      if (out.length >= limit) break;
      out.push(bar);
    }
    return out;
  }

  /** The bars of `tf` opening in [fromMs, toMs], the newest `limit` of them, newest first. */
  between(tf: Timeframe, fromMs: number, toMs: number, limit: number): TickBar[] {
    const out: TickBar[] = [];
    for (const bar of this.newestFirst(tf, toMs)) {
      if (out.length >= limit || bar.openMs < fromMs) break;
      out.push(bar);
    }
    return out;
  }

  private formingMinute(): TickBar | null {
    if (this.minuteOpenMs < 0) return null;
    return {
      openMs: this.minuteOpenMs,
      open: this.open,
      high: this.high,
      low: this.low,
      close: this.close,
      volSteps: this.volSteps,
      quoteTickSteps: this.quoteFolded + BigInt(this.quote),
    };
  }

  private closeMinute(): void {
    const minute = this.formingMinute()!;
    this.keep('1m', minute);
    for (const tf of LARGER) {
      const openMs = barOpenMs(minute.openMs, tf);
      const bar = this.forming.get(tf);
      if (bar && bar.openMs === openMs) {
        extendBar(bar, minute);
        continue;
      }
      if (bar) this.keep(tf, bar);
      this.forming.set(tf, Object.assign({}, minute, { openMs }));
    }
  }

  private keep(tf: Timeframe, bar: TickBar): void {
    const bars = this.complete.get(tf)!;
    bars.push(bar);
    const kept = keptBars(tf);
    if (bars.length > 2 * kept) {
      bars.splice(0, bars.length - kept);
      this.trimmed.add(tf);
    }
  }

  /** The bars built from ticks, oldest first, the forming one last (the forming minute folded in). */
  private built(tf: Timeframe): TickBar[] {
    const bars = this.complete.get(tf)!.slice();
    const minute = this.formingMinute();
    if (tf === '1m') {
      if (minute) bars.push(minute);
      return bars;
    }
    const forming = this.forming.get(tf);
    const minuteOpenMs = minute ? barOpenMs(minute.openMs, tf) : Number.NaN;
    if (forming && minute && forming.openMs === minuteOpenMs) bars.push(joinBars(forming.openMs, forming, minute));
    else {
      if (forming) bars.push(forming);
      if (minute) bars.push(Object.assign({}, minute, { openMs: minuteOpenMs }));
    }
    return bars;
  }

  /**
   * Every bar of `tf` opening at or before `toMs`, newest first: those built from ticks, then the seeded past. The
   * bar holding the start joins the past's minutes before the first tick to the ticks after it.
   */
  private *newestFirst(tf: Timeframe, toMs: number): Generator<TickBar> {
    const built = this.built(tf);
    let i = built.length - 1;
    for (; i >= 0 && built[i]!.openMs > toMs; i--);
    for (; i > 0; i--) yield built[i]!;
    const past = this.past;
    if (!past || this.trimmed.has(tf)) {
      if (i === 0) yield built[0]!;
      return;
    }
    const len = TIMEFRAME_MS[tf];
    // The newest bar holding minutes of the past.
    let openMs = barOpenMs(past.endMs - MINUTE_MS, tf);
    if (i === 0) {
      const first = built[0]!;
      const before = first.openMs === openMs ? past.aggregate(openMs, openMs, past.endMs) : null;
      yield before ? joinBars(openMs, before, first) : first;
      if (first.openMs === openMs) openMs -= len;
    }
    for (openMs = Math.min(openMs, barOpenMs(toMs, tf)); ; openMs -= len) {
      const bar = past.aggregate(openMs, openMs, openMs + len);
      if (!bar) return;
      yield bar;
    }
  }
}
