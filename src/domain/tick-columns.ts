// Replay records as integer columns: a block of market events in the units the simulator trades (prices in ticks,
// sizes in steps of each symbol), what a replay reads a chunk at a time; and the feed of such blocks in time order.
import { Decimal } from './decimal.js';
import type { ReplayRecord } from './replay-record.js';

/** A symbol's units: its records' prices are counted in ticks of `tickSize`, sizes in steps of `stepSize`. */
export interface TickUnits {
  symbol: string;
  tickSize: Decimal;
  stepSize: Decimal;
}

/**
 * Replay records as columns of integers; the rows of the block are [begin, end). `sym` is the symbol's index in the
 * list of units the records were converted with; `maker` is 1 when the aggressor sold; `mark` and `index` are the
 * recorded mark and index prices in ticks, 0 when not recorded.
 */
export class TickColumns {
  begin = 0;
  end = 0;
  sym: Uint16Array;
  ts: Float64Array;
  last: Float64Array;
  bid: Float64Array;
  ask: Float64Array;
  size: Float64Array;
  maker: Uint8Array;
  mark: Float64Array;
  index: Float64Array;

  constructor(public capacity: number) {
    this.sym = new Uint16Array(capacity);
    this.ts = new Float64Array(capacity);
    this.last = new Float64Array(capacity);
    this.bid = new Float64Array(capacity);
    this.ask = new Float64Array(capacity);
    this.size = new Float64Array(capacity);
    this.maker = new Uint8Array(capacity);
    this.mark = new Float64Array(capacity);
    this.index = new Float64Array(capacity);
  }

  /** Rows of the block. */
  get rows(): number {
    return this.end - this.begin;
  }

  /** Room for at least `capacity` rows, the rows held kept. */
  reserve(capacity: number): void {
    if (capacity <= this.capacity) return;
    const grown = new TickColumns(Math.max(capacity, this.capacity * 2));
    copyRows(this, 0, this.end, grown, 0);
    this.capacity = grown.capacity;
    this.sym = grown.sym;
    this.ts = grown.ts;
    this.last = grown.last;
    this.bid = grown.bid;
    this.ask = grown.ask;
    this.size = grown.size;
    this.maker = grown.maker;
    this.mark = grown.mark;
    this.index = grown.index;
  }
}

/** Copies rows [from, to) of `src` to `dst` from row `at` on (the caller makes room). */
export function copyRows(src: TickColumns, from: number, to: number, dst: TickColumns, at: number): void {
  const n = to - from;
  if (n <= 0) return;
  if (n < 16) {
    for (let i = 0; i < n; i++) copyRow(src, from + i, dst, at + i);
    return;
  }
  dst.sym.set(src.sym.subarray(from, to), at);
  dst.ts.set(src.ts.subarray(from, to), at);
  dst.last.set(src.last.subarray(from, to), at);
  dst.bid.set(src.bid.subarray(from, to), at);
  dst.ask.set(src.ask.subarray(from, to), at);
  dst.size.set(src.size.subarray(from, to), at);
  dst.maker.set(src.maker.subarray(from, to), at);
  dst.mark.set(src.mark.subarray(from, to), at);
  dst.index.set(src.index.subarray(from, to), at);
}

export function copyRow(src: TickColumns, i: number, dst: TickColumns, j: number): void {
  dst.sym[j] = src.sym[i]!;
  dst.ts[j] = src.ts[i]!;
  dst.last[j] = src.last[i]!;
  dst.bid[j] = src.bid[i]!;
  dst.ask[j] = src.ask[i]!;
  dst.size[j] = src.size[i]!;
  dst.maker[j] = src.maker[i]!;
  dst.mark[j] = src.mark[i]!;
  dst.index[j] = src.index[i]!;
}

/**
 * Writes a record into row `row` as symbol `sym` of `units`: the trade price in ticks; bid and ask as recorded, else
 * one tick around the trade on the side the aggressor took; the size in steps, at least one; mark and index when
 * recorded (0 otherwise). Prices round half-up to the tick, sizes to the step.
 */
export function putRecord(cols: TickColumns, row: number, sym: number, rec: ReplayRecord, units: TickUnits): void {
  const tick = units.tickSize;
  const last = Decimal.stepsOf(rec.price, tick);
  const maker = rec.buyerMaker ?? false;
  cols.sym[row] = sym;
  cols.ts[row] = rec.ts;
  cols.last[row] = last;
  cols.bid[row] = rec.bid ? Decimal.stepsOf(rec.bid, tick) : maker ? last : last - 1;
  cols.ask[row] = rec.ask ? Decimal.stepsOf(rec.ask, tick) : maker ? last + 1 : last;
  cols.size[row] = Math.max(1, Decimal.stepsOf(rec.size, units.stepSize));
  cols.maker[row] = maker ? 1 : 0;
  cols.mark[row] = rec.mark ? Decimal.stepsOf(rec.mark, tick) : 0;
  cols.index[row] = rec.index ? Decimal.stepsOf(rec.index, tick) : 0;
}

/** Whether the block's rows are in time order. */
export function inTimeOrder(cols: TickColumns): boolean {
  const ts = cols.ts;
  for (let i = cols.begin + 1; i < cols.end; i++) if (ts[i]! < ts[i - 1]!) return false;
  return true;
}

/** Sorts the block's rows by time, in place; rows of one instant keep their order (a stable sort). */
export function sortByTime(cols: TickColumns): void {
  if (inTimeOrder(cols)) return;
  const n = cols.rows;
  const ts = cols.ts;
  const begin = cols.begin;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = begin + i;
  order.sort((a, b) => ts[a]! - ts[b]! || a - b);
  const copy = new TickColumns(n);
  for (let i = 0; i < n; i++) copyRow(cols, order[i]!, copy, i);
  copyRows(copy, 0, n, cols, begin);
}

/** The first of rows [lo, hi) of times `ts` (in order) at or after `fromMs`; hi when none. */
export function firstRowFrom(ts: Float64Array, lo: number, hi: number, fromMs: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < fromMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first of rows [lo, hi) of times `ts` (in order) after `toMs`; hi when none. */
export function firstRowAfter(ts: Float64Array, lo: number, hi: number, toMs: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! <= toMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Market events in time order, a block at a time (a replay reads the next block when it has replayed the last one).
 * Symbols are indices into the units the feed was opened with.
 */
export interface TickFeed {
  /** Records the feed holds, in all. */
  readonly count: number;
  /** Time of the last record (NaN when none). */
  readonly lastTs: number;
  /** Each symbol's first record, one row per symbol that has records (a replay seeds each book with it). */
  readonly firsts: TickColumns;
  /** The next block, never empty; null once every record was handed out. A block may be reused by the next call. */
  next(): TickColumns | null;
  /** Lets go of what the feed holds open (files); the feed hands out nothing more. */
  close(): void;
}
