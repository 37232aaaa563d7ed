// Bars of one symbol in several timeframes, built from trades in integer price ticks and size steps (the backtest's
// hot path: a trade that closes no bar allocates nothing), and the warm-up bars made of the venue's candles.
import { TIMEFRAME_MS, barOpenMs, isMadeOf, type Bar, type Timeframe, type VenueCandle } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';

export interface BarBuilderOptions {
  symbol: string;
  timeframes: readonly Timeframe[];
  /** The instrument's tick and step: trades come as counts of them. */
  tickSize: Decimal;
  stepSize: Decimal;
  /** Each closed bar, once, in time order (the same close time: the shorter timeframe first). */
  onClose: (bar: Bar) => void;
}

/**
 * One symbol's bars for several timeframes. Invariants:
 * - bars open on `barOpenMs` and close `TIMEFRAME_MS` later; a bar closes when a trade at or after its close time
 *   arrives or `closeUntil` reaches its close time, whichever comes first: the bars do not depend on when
 *   `closeUntil` is called, as long as it is never called with a time later than a trade still to come;
 * - every bar is delivered, from the first trade (or seeded bar) on: a bar without trades is flat at the previous
 *   close, volume 0, trades 0;
 * - a trade older than the forming bars (of the shortest timeframe) is late: counted and dropped in every timeframe,
 *   so each coarser bar is exactly the sum of its finer ones.
 * The state of each timeframe lives in flat typed arrays, indexed by timeframe (shortest first).
 */
export class BarBuilder {
  readonly symbol: string;
  /** The builder's timeframes, shortest first, each once. */
  readonly timeframes: readonly Timeframe[];
  private readonly tickSize: Decimal;
  private readonly stepSize: Decimal;
  private readonly onClose: (bar: Bar) => void;
  private readonly count: number;
  private readonly lengthMs: Float64Array;
  /** The forming bar of each timeframe: NaN open and close while none (before its first trade or seed). */
  private readonly openMs: Float64Array;
  private readonly closeMs: Float64Array;
  private readonly open: Float64Array;
  private readonly high: Float64Array;
  private readonly low: Float64Array;
  private readonly close: Float64Array;
  private readonly volume: Float64Array;
  private readonly trades: Float64Array;
  /** 1 while the forming bar has had no trade (its prices are the previous close, or a seeded bar's). */
  private readonly flat: Uint8Array;
  /** Trades at or before this time are already in the seeded bars (-Infinity: none seeded). */
  private readonly asOfMs: Float64Array;
  /** Volume of a seeded forming bar not in whole steps, kept exact until the bar closes. */
  private readonly seededVolume: Array<Decimal | null>;
  /** The earliest close among the forming bars; -Infinity while a timeframe has none (the next trade starts it). */
  private nextCloseMs = Number.NEGATIVE_INFINITY;
  /** The latest open among the forming bars: an older trade is late. */
  private lateBeforeMs = Number.NEGATIVE_INFINITY;
  private latestAsOfMs = Number.NEGATIVE_INFINITY;
  private lateTrades = 0;

  constructor(opts: BarBuilderOptions) {
    if (opts.timeframes.length === 0) throw new RangeError(`bars of ${opts.symbol}: no timeframe`);
    this.symbol = opts.symbol;
    this.timeframes = [...new Set(opts.timeframes)].sort((a, b) => TIMEFRAME_MS[a] - TIMEFRAME_MS[b]);
    this.tickSize = opts.tickSize;
    this.stepSize = opts.stepSize;
    this.onClose = opts.onClose;
    const n = (this.count = this.timeframes.length);
    this.lengthMs = Float64Array.from(this.timeframes, (tf) => TIMEFRAME_MS[tf]);
    this.openMs = new Float64Array(n).fill(Number.NaN);
    this.closeMs = new Float64Array(n).fill(Number.NaN);
    this.open = new Float64Array(n);
    this.high = new Float64Array(n);
    this.low = new Float64Array(n);
    this.close = new Float64Array(n);
    this.volume = new Float64Array(n);
    this.trades = new Float64Array(n);
    this.flat = new Uint8Array(n);
    this.asOfMs = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.seededVolume = new Array<Decimal | null>(n).fill(null);
  }

  /** Trades dropped as late (they arrived for a bar already closed). */
  get late(): number {
    return this.lateTrades;
  }

  /**
   * A trade at `ts`: first closes (emits) every bar that ended at or before `ts`, in time order, then adds the
   * trade to the forming bars. Prices in ticks, sizes in steps of the instrument.
   */
  trade(ts: number, priceTicks: number, sizeSteps: number): void {
    if (ts < this.lateBeforeMs) {
      if (ts > this.latestAsOfMs) this.lateTrades++;
      return;
    }
    if (ts >= this.nextCloseMs) this.advance(ts, true);
    const n = this.count;
    for (let k = 0; k < n; k++) {
      if (ts <= this.asOfMs[k]!) continue;
      if (this.flat[k] === 1) {
        this.flat[k] = 0;
        this.open[k] = priceTicks;
        this.high[k] = priceTicks;
        this.low[k] = priceTicks;
      } else if (priceTicks > this.high[k]!) this.high[k] = priceTicks;
      else if (priceTicks < this.low[k]!) this.low[k] = priceTicks;
      this.close[k] = priceTicks;
      this.volume[k] = this.volume[k]! + sizeSteps;
      this.trades[k] = this.trades[k]! + 1;
    }
  }

  /** A trade with exact price and size (live data): to ticks and steps, half-up (the venue's are whole ones). */
  tradeDecimal(ts: number, price: Decimal, size: Decimal): void {
    this.trade(ts, price.steps(this.tickSize, 'half-up'), size.steps(this.stepSize, 'half-up'));
  }

  /**
   * Closes every bar that ended at or before `nowMs` (no trade since). A timeframe without a forming bar (before
   * its first trade or seeded bar) emits nothing.
   */
  closeUntil(nowMs: number): void {
    this.advance(nowMs, false);
  }

  /** The forming bar of a timeframe (a fresh Bar) or null when none; as of the latest trade or `closeUntil`. */
  forming(tf: Timeframe): Bar | null {
    const k = this.indexOf(tf);
    return Number.isNaN(this.openMs[k]!) ? null : this.barOf(k);
  }

  /**
   * Starts a timeframe from history (the warm-up from the venue's candles), before any trade: `last` (the last
   * closed bar) gives the close that flat bars carry; `forming`, when given, is the bar in progress, from its
   * prices and volume on. Trades at or before `asOfMs` are then ignored in this timeframe (already counted).
   */
  seed(tf: Timeframe, last: Bar | null, forming: Bar | null, asOfMs: number): void {
    const k = this.indexOf(tf);
    const len = this.lengthMs[k]!;
    for (const b of [last, forming]) {
      if (b && (b.openMs !== barOpenMs(b.openMs, tf) || b.closeMs !== b.openMs + len)) throw new RangeError(`seed of ${this.symbol} ${tf}: bar ${b.openMs}–${b.closeMs} is not a ${tf} bar`);
    }
    if (last && forming && forming.openMs < last.closeMs) throw new RangeError(`seed of ${this.symbol} ${tf}: the forming bar opens before the last closed one ends`);
    this.seededVolume[k] = null;
    if (forming) {
      this.openMs[k] = forming.openMs;
      this.open[k] = this.ticks(forming.open);
      this.high[k] = this.ticks(forming.high);
      this.low[k] = this.ticks(forming.low);
      this.close[k] = this.ticks(forming.close);
      this.volume[k] = 0;
      this.seededVolume[k] = forming.volume;
      this.trades[k] = forming.trades;
      this.flat[k] = 0;
    } else if (last) {
      this.openMs[k] = last.closeMs;
      this.restFlat(k, this.ticks(last.close));
    } else {
      this.openMs[k] = Number.NaN;
    }
    this.closeMs[k] = this.openMs[k]! + len;
    this.asOfMs[k] = asOfMs;
    if (asOfMs > this.latestAsOfMs) this.latestAsOfMs = asOfMs;
    this.bounds();
  }

  private ticks(price: Decimal): number {
    return price.steps(this.tickSize, 'half-up');
  }

  private indexOf(tf: Timeframe): number {
    const k = this.timeframes.indexOf(tf);
    if (k < 0) throw new RangeError(`bars of ${this.symbol}: ${tf} is not built (${this.timeframes.join(', ')})`);
    return k;
  }

  /** A fresh bar with no trade yet, flat at `closeTicks`. */
  private restFlat(k: number, closeTicks: number): void {
    this.open[k] = closeTicks;
    this.high[k] = closeTicks;
    this.low[k] = closeTicks;
    this.close[k] = closeTicks;
    this.volume[k] = 0;
    this.trades[k] = 0;
    this.flat[k] = 1;
  }

  /** Emits the bars that closed at or before `t`, oldest first; with a trade, starts the timeframes it is the first of. */
  private advance(t: number, forTrade: boolean): void {
    if (!Number.isFinite(t)) throw new RangeError(`bars of ${this.symbol}: time ${t} is not a finite number of ms`);
    const n = this.count;
    for (;;) {
      let due = -1;
      let dueMs = Number.POSITIVE_INFINITY;
      // Strict: of bars closing at the same time, the shortest timeframe's (the lowest index) first.
      for (let k = 0; k < n; k++) {
        const c = this.closeMs[k]!;
        if (c <= t && c < dueMs) {
          due = k;
          dueMs = c;
        }
      }
      if (due < 0) break;
      const bar = this.barOf(due);
      // The next bar is in place before the bar is handed out: a reader of the forming bar sees it.
      this.openMs[due] = dueMs;
      this.closeMs[due] = dueMs + this.lengthMs[due]!;
      this.seededVolume[due] = null;
      this.restFlat(due, this.close[due]!);
      this.onClose(bar);
    }
    if (forTrade) {
      for (let k = 0; k < n; k++) {
        if (!Number.isNaN(this.openMs[k]!) || t <= this.asOfMs[k]!) continue;
        const openMs = barOpenMs(t, this.timeframes[k]!);
        this.openMs[k] = openMs;
        this.closeMs[k] = openMs + this.lengthMs[k]!;
        this.restFlat(k, 0);
      }
    }
    this.bounds();
  }

  private bounds(): void {
    let next = Number.POSITIVE_INFINITY;
    let lateBefore = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < this.count; k++) {
      const o = this.openMs[k]!;
      if (Number.isNaN(o)) {
        next = Number.NEGATIVE_INFINITY;
        continue;
      }
      if (this.closeMs[k]! < next) next = this.closeMs[k]!;
      if (o > lateBefore) lateBefore = o;
    }
    this.nextCloseMs = next;
    this.lateBeforeMs = lateBefore;
  }

  private barOf(k: number): Bar {
    const tick = this.tickSize;
    const steps = Decimal.ofSteps(this.volume[k]!, this.stepSize);
    const seeded = this.seededVolume[k];
    return {
      symbol: this.symbol,
      timeframe: this.timeframes[k]!,
      openMs: this.openMs[k]!,
      closeMs: this.closeMs[k]!,
      open: Decimal.ofSteps(this.open[k]!, tick),
      high: Decimal.ofSteps(this.high[k]!, tick),
      low: Decimal.ofSteps(this.low[k]!, tick),
      close: Decimal.ofSteps(this.close[k]!, tick),
      volume: seeded ? seeded.add(steps) : steps,
      trades: this.trades[k]!,
    };
  }
}

/**
 * Bars from the venue's candles (S10, F10, F11) as of `nowMs`: the closed ones (openMs + length <= nowMs), oldest
 * first, a missing candle between two filled flat at the previous close (every bar is there, as the builder makes
 * them), and the forming one, if the venue served it. Candles later than `nowMs` are left out; a row served twice
 * counts once (the later one). Volume is the base-currency volume; `trades` 0 (the venue does not say).
 */
export function barsFromCandles(symbol: string, tf: Timeframe, candles: readonly VenueCandle[], nowMs: number): { closed: Bar[]; forming: Bar | null } {
  const len = TIMEFRAME_MS[tf];
  const byOpen = new Map<number, VenueCandle>();
  for (const c of candles) {
    if (c.openMs !== barOpenMs(c.openMs, tf)) throw new RangeError(`${symbol} ${tf} candle at ${c.openMs} is not on a ${tf} boundary`);
    if (c.openMs <= nowMs) byOpen.set(c.openMs, c);
  }
  const rows = [...byOpen.values()].sort((a, b) => a.openMs - b.openMs);
  const closed: Bar[] = [];
  let forming: Bar | null = null;
  for (const c of rows) {
    const bar: Bar = { symbol, timeframe: tf, openMs: c.openMs, closeMs: c.openMs + len, open: c.open, high: c.high, low: c.low, close: c.close, volume: c.baseVolume, trades: 0 };
    const prev = closed[closed.length - 1];
    for (let t = prev ? prev.closeMs : c.openMs; t < c.openMs; t += len) closed.push(flatAfter(closed[closed.length - 1]!, t, len));
    if (bar.closeMs <= nowMs) closed.push(bar);
    else forming = bar;
  }
  return { closed, forming };
}

function flatAfter(prev: Bar, openMs: number, len: number): Bar {
  const p = prev.close;
  return { symbol: prev.symbol, timeframe: prev.timeframe, openMs, closeMs: openMs + len, open: p, high: p, low: p, close: p, volume: Decimal.ZERO, trades: 0 };
}

/**
 * Bars of a coarser timeframe made of finer ones (2h from 1h where the venue has no 2h candles), exactly: open of
 * the first, close of the last, highest high, lowest low, volumes and trades summed. `closed` must be contiguous
 * bars of one timeframe (as barsFromCandles and the builder give them). A coarse bar whose start is missing (the
 * history begins inside it) is left out; the last coarse bar, still short of its end, joined with the fine forming
 * bar, is the coarse forming one (null when its start is missing or there is none).
 */
export function aggregateBars(closed: readonly Bar[], forming: Bar | null, tf: Timeframe): { closed: Bar[]; forming: Bar | null } {
  const from = closed[0]?.timeframe ?? forming?.timeframe;
  if (from === undefined || from === tf) return { closed: [...closed], forming };
  if (!isMadeOf(tf, from)) throw new RangeError(`${tf} bars cannot be made of ${from} bars`);
  const per = TIMEFRAME_MS[tf] / TIMEFRAME_MS[from];
  for (let i = 0; i < closed.length; i++) {
    const b = closed[i]!;
    if (b.timeframe !== from) throw new RangeError(`aggregateBars: a ${b.timeframe} bar among ${from} bars`);
    if (i > 0 && b.openMs !== closed[i - 1]!.closeMs) throw new RangeError(`aggregateBars: ${from} bars not contiguous at ${closed[i - 1]!.closeMs} (next opens at ${b.openMs})`);
  }
  if (forming && (forming.timeframe !== from || (closed.length > 0 && forming.openMs !== closed[closed.length - 1]!.closeMs))) {
    throw new RangeError(`aggregateBars: the forming bar does not follow the closed ${from} bars`);
  }
  const out: Bar[] = [];
  let group: Bar[] = [];
  const flush = () => {
    if (group.length === per) out.push(merged(group, tf));
    group = [];
  };
  for (const b of closed) {
    if (group.length > 0 && barOpenMs(b.openMs, tf) !== barOpenMs(group[0]!.openMs, tf)) flush();
    group.push(b);
  }
  if (group.length === per) flush();
  if (forming) {
    if (group.length > 0 && barOpenMs(forming.openMs, tf) !== barOpenMs(group[0]!.openMs, tf)) group = [];
    group.push(forming);
  }
  const starts = group.length > 0 && group[0]!.openMs === barOpenMs(group[0]!.openMs, tf);
  return { closed: out, forming: starts ? merged(group, tf) : null };
}

function merged(bars: readonly Bar[], tf: Timeframe): Bar {
  const first = bars[0]!;
  let { high, low, volume, trades } = first;
  for (let i = 1; i < bars.length; i++) {
    const b = bars[i]!;
    if (b.high.gt(high)) high = b.high;
    if (b.low.lt(low)) low = b.low;
    volume = volume.add(b.volume);
    trades += b.trades;
  }
  const openMs = barOpenMs(first.openMs, tf);
  return { symbol: first.symbol, timeframe: tf, openMs, closeMs: openMs + TIMEFRAME_MS[tf], open: first.open, high, low, close: bars[bars.length - 1]!.close, volume, trades };
}
