// One data file's records replayed straight from the file, without a tick cache (none configured, or none could be
// written): read once to count the window's records and find each symbol's first, then read again as the replay
// advances. A file out of time order cannot be streamed (the caller sorts it into a temporary cache when it can; the
// feed, otherwise, holds its window in memory and sorts it).
import { TickColumns, putRecord, sortByTime, type TickFeed, type TickUnits } from '../domain/tick-columns.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { replayRecords } from './replay-file.js';
import type { ReplayWindow } from './tick-cache-feed.js';

/** What a first reading of a file finds in a window: its records' count, last time, each symbol's first, their order. */
export interface SourceScan {
  count: number;
  lastTs: number;
  firsts: TickColumns;
  inOrder: boolean;
}

/** Which symbol (index of `units`) a record in the window is of; -1 when it is outside the window or not traded. */
function keeper(units: readonly TickUnits[], window: ReplayWindow): (r: ReplayRecord) => number {
  const index = new Map(units.map((u, i) => [u.symbol, i]));
  const fromMs = window.fromMs ?? Number.NEGATIVE_INFINITY;
  const toMs = window.toMs ?? Number.POSITIVE_INFINITY;
  return (r) => (r.ts >= fromMs && r.ts <= toMs ? index.get(r.symbol) ?? -1 : -1);
}

/** Reads a file once: what its records in the window are (see SourceScan). */
export function scanSource(path: string, units: readonly TickUnits[], window: ReplayWindow): SourceScan {
  const keep = keeper(units, window);
  const firsts = new TickColumns(units.length);
  const firstRow = new Map<number, number>();
  let count = 0;
  let inOrder = true;
  let lastTs = Number.NaN;
  for (const r of replayRecords(path)) {
    const sym = keep(r);
    if (sym < 0) continue;
    count++;
    if (r.ts < lastTs) inOrder = false;
    else lastTs = r.ts;
    const row = firstRow.get(sym);
    // A symbol's first record is its earliest; of one instant, the one that came first.
    if (row === undefined) firstRow.set(sym, firsts.end++);
    if (row === undefined || r.ts < firsts.ts[row]!) putRecord(firsts, firstRow.get(sym)!, sym, r, units[sym]!);
  }
  return { count, lastTs, firsts, inOrder };
}

/** A file's records in the window, read again a block at a time; a file out of time order is held whole and sorted. */
export class SourceFeed implements TickFeed {
  readonly count: number;
  readonly lastTs: number;
  readonly firsts: TickColumns;
  private readonly block: TickColumns;
  private records: Generator<ReplayRecord, void, undefined> | null = null;
  private pending: TickColumns | null = null;
  private readonly keep: (r: ReplayRecord) => number;

  constructor(
    path: string,
    private readonly units: readonly TickUnits[],
    window: ReplayWindow,
    blockRows: number,
    scan: SourceScan = scanSource(path, units, window),
  ) {
    this.keep = keeper(units, window);
    this.count = scan.count;
    this.lastTs = scan.lastTs;
    this.firsts = scan.firsts;
    if (scan.inOrder) {
      this.block = new TickColumns(Math.max(1, blockRows));
      this.records = scan.count > 0 ? replayRecords(path) : null;
    } else {
      this.block = new TickColumns(scan.count);
      const all = replayRecords(path);
      this.fill(all, scan.count);
      all.return();
      sortByTime(this.block);
      this.pending = this.block;
    }
  }

  next(): TickColumns | null {
    if (this.pending) {
      const block = this.pending;
      this.pending = null;
      return block;
    }
    if (!this.records) return null;
    this.block.begin = 0;
    this.block.end = 0;
    if (!this.fill(this.records, this.block.capacity)) this.close();
    return this.block.end > 0 ? this.block : null;
  }

  close(): void {
    this.records?.return();
    this.records = null;
    this.pending = null;
  }

  /** Reads the window's records into the block until it holds `rows`; false when the file ended first. */
  private fill(records: Iterator<ReplayRecord, void, undefined>, rows: number): boolean {
    const block = this.block;
    while (block.end < rows) {
      const next = records.next();
      if (next.done) return false;
      const sym = this.keep(next.value);
      if (sym >= 0) putRecord(block, block.end++, sym, next.value, this.units[sym]!);
    }
    return true;
  }
}
