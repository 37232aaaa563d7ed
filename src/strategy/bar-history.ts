// The closed bars strategies look back on: one ring per (symbol, timeframe), shared by the instances that ask for
// it, sized for the longest lookback; each instance reads it through its own series, bounded by its own lookback.
import type { Bar, Timeframe } from '../domain/candles.js';

/**
 * What a strategy reads of one symbol's bars of one timeframe: the last `lookback` closed bars and the forming one.
 * Indexing: `at(0)` is the oldest bar held, `at(-1)` (like Array.prototype.at) and `last()` the newest;
 * `last(1)` the one before it. Number arrays (`closes` …) run oldest first, as indicators take them, and are
 * `Decimal.toNumber()` of the exact values: for indicators only (see priceFromFloat for the way back).
 */
export interface BarSeries {
  readonly symbol: string;
  readonly timeframe: Timeframe;
  /** Closed bars held (at most the lookback). */
  readonly length: number;
  /** The i-th closed bar, 0 the oldest; a negative i counts from the newest (-1 the newest); undefined out of range. */
  at(i: number): Bar | undefined;
  /** The bar `n` back from the newest closed one (0, the default: the newest); undefined out of range. */
  last(n?: number): Bar | undefined;
  /** The bar being built now (its figures so far), or null when none. */
  readonly forming: Bar | null;
  /** The last `n` (default: all held) closes, highs, lows, opens or volumes as numbers, oldest first. */
  closes(n?: number): number[];
  highs(n?: number): number[];
  lows(n?: number): number[];
  opens(n?: number): number[];
  volumes(n?: number): number[];
}

/** Closed bars of one (symbol, timeframe), newest overwriting the oldest; numbers kept beside the bars for indicators. */
export class BarRing {
  private readonly bars: Array<Bar | undefined>;
  private readonly opens: Float64Array;
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private readonly closes: Float64Array;
  private readonly volumes: Float64Array;
  /** Where the next bar goes. */
  private head = 0;
  private held = 0;
  /** Where the forming bar is read (on each access); none: no forming bar. */
  formingSource: (() => Bar | null) | undefined;

  constructor(
    readonly symbol: string,
    readonly timeframe: Timeframe,
    readonly capacity: number,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1)
      throw new RangeError(`bar history of ${symbol} ${timeframe}: capacity ${capacity} is not a whole number above 0`);
    this.bars = new Array<Bar | undefined>(capacity);
    this.opens = new Float64Array(capacity);
    this.highs = new Float64Array(capacity);
    this.lows = new Float64Array(capacity);
    this.closes = new Float64Array(capacity);
    this.volumes = new Float64Array(capacity);
  }

  get length(): number {
    return this.held;
  }

  /** Open time of the newest bar held (-Infinity when none). */
  get lastOpenMs(): number {
    return this.held === 0 ? Number.NEGATIVE_INFINITY : this.bars[(this.head - 1 + this.capacity) % this.capacity]!.openMs;
  }

  /** Adds a closed bar; one not newer than the newest held is refused (false): a bar is delivered once. */
  push(bar: Bar): boolean {
    if (bar.openMs <= this.lastOpenMs) return false;
    const i = this.head;
    this.bars[i] = bar;
    this.opens[i] = bar.open.toNumber();
    this.highs[i] = bar.high.toNumber();
    this.lows[i] = bar.low.toNumber();
    this.closes[i] = bar.close.toNumber();
    this.volumes[i] = bar.volume.toNumber();
    this.head = i + 1 === this.capacity ? 0 : i + 1;
    if (this.held < this.capacity) this.held++;
    return true;
  }

  /** The bar `back` places before the newest (0: the newest); `back` must be below length. */
  bar(back: number): Bar {
    return this.bars[this.slot(back)]!;
  }

  private slot(back: number): number {
    const i = this.head - 1 - back;
    return i < 0 ? i + this.capacity : i;
  }

  /** The last `n` values of a column, oldest first. */
  column(name: 'opens' | 'highs' | 'lows' | 'closes' | 'volumes', n: number): number[] {
    const col = this[name];
    const out = new Array<number>(n);
    for (let j = 0; j < n; j++) out[j] = col[this.slot(n - 1 - j)]!;
    return out;
  }

  /** A series reading this ring, limited to `lookback` bars. */
  series(lookback: number): BarSeries {
    return new RingSeries(this, lookback);
  }
}

class RingSeries implements BarSeries {
  constructor(
    private readonly ring: BarRing,
    private readonly lookback: number,
  ) {}

  get symbol(): string {
    return this.ring.symbol;
  }

  get timeframe(): Timeframe {
    return this.ring.timeframe;
  }

  get length(): number {
    const held = this.ring.length;
    return held < this.lookback ? held : this.lookback;
  }

  at(i: number): Bar | undefined {
    const len = this.length;
    if (!Number.isInteger(i)) return undefined;
    const back = i < 0 ? -i - 1 : len - 1 - i;
    return back >= 0 && back < len ? this.ring.bar(back) : undefined;
  }

  last(n = 0): Bar | undefined {
    return Number.isInteger(n) && n >= 0 && n < this.length ? this.ring.bar(n) : undefined;
  }

  get forming(): Bar | null {
    return this.ring.formingSource?.() ?? null;
  }

  private column(name: 'opens' | 'highs' | 'lows' | 'closes' | 'volumes', n: number | undefined): number[] {
    const len = this.length;
    const k = n === undefined ? len : Math.max(0, Math.min(len, Math.floor(n)));
    return this.ring.column(name, k);
  }

  closes(n?: number): number[] {
    return this.column('closes', n);
  }

  highs(n?: number): number[] {
    return this.column('highs', n);
  }

  lows(n?: number): number[] {
    return this.column('lows', n);
  }

  opens(n?: number): number[] {
    return this.column('opens', n);
  }

  volumes(n?: number): number[] {
    return this.column('volumes', n);
  }
}

/** The rings of every (symbol, timeframe) asked for, each as long as the longest lookback asking for it. */
export class BarHistory {
  private readonly rings = new Map<string, Map<Timeframe, BarRing>>();
  private readonly wanted = new Map<string, Map<Timeframe, number>>();

  /** Asks for `lookback` bars of (symbol, timeframe); rings are made by `build`, once every ask is in. */
  want(symbol: string, timeframe: Timeframe, lookback: number): void {
    const bySymbol = this.wanted.get(symbol) ?? new Map<Timeframe, number>();
    this.wanted.set(symbol, bySymbol);
    bySymbol.set(timeframe, Math.max(bySymbol.get(timeframe) ?? 0, lookback));
  }

  build(): void {
    for (const [symbol, byTf] of this.wanted) {
      const rings = this.rings.get(symbol) ?? new Map<Timeframe, BarRing>();
      this.rings.set(symbol, rings);
      for (const [tf, capacity] of byTf) if (!rings.has(tf)) rings.set(tf, new BarRing(symbol, tf, capacity));
    }
  }

  ring(symbol: string, timeframe: Timeframe): BarRing | undefined {
    return this.rings.get(symbol)?.get(timeframe);
  }

  /** Every ring, in the order asked for. */
  all(): BarRing[] {
    return [...this.rings.values()].flatMap((m) => [...m.values()]);
  }
}
