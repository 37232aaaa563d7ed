// One data file's records replayed from its tick cache: the chunks a window needs, read one at a time as the replay
// advances; the window's records counted from the chunk index (only the chunks at its edges are looked into).
import { Decimal } from '../domain/decimal.js';
import { TickColumns, copyRow, firstRowAfter, firstRowFrom, type TickFeed, type TickUnits } from '../domain/tick-columns.js';
import type { CacheSymbol, TickCacheHeader, TickChunkFile } from './tick-cache-file.js';
import { ChunkBlocks, type ChunkSegment } from './tick-merge.js';

/** The replay window: records at or after `fromMs` and at or before `toMs` (either open). */
export interface ReplayWindow {
  fromMs?: number;
  toMs?: number;
}

/** No symbol of the reader (a symbol the cache left out). */
const NONE = 0xffff;

/**
 * How the cache's symbols map to the reader's units, or null when the cache does not fit them: a symbol converted in
 * other units, left out but traded now, or kept but not traded now.
 */
export function symbolMap(symbols: readonly CacheSymbol[], units: readonly TickUnits[]): Uint16Array | null {
  const map = new Uint16Array(symbols.length);
  const index = new Map(units.map((u, i) => [u.symbol, i]));
  for (let k = 0; k < symbols.length; k++) {
    const s = symbols[k]!;
    const i = index.get(s.symbol);
    const u = i === undefined ? undefined : units[i]!;
    if (!u !== (s.tickSize === undefined)) return null;
    if (!u) {
      map[k] = NONE;
      continue;
    }
    if (!sameDecimal(s.tickSize!, u.tickSize) || !sameDecimal(s.stepSize!, u.stepSize)) return null;
    map[k] = i!;
  }
  return map;
}

function sameDecimal(text: string, value: Decimal): boolean {
  const d = Decimal.parse(text);
  return d !== null && d.eq(value);
}

export class CacheFeed implements TickFeed {
  readonly count: number;
  readonly lastTs: number;
  readonly firsts: TickColumns;
  private readonly blocks: ChunkBlocks;
  private closed = false;

  constructor(
    private readonly file: TickChunkFile,
    header: TickCacheHeader,
    map: Uint16Array,
    window: ReplayWindow,
  ) {
    const fromMs = window.fromMs ?? Number.NEGATIVE_INFINITY;
    const toMs = window.toMs ?? Number.POSITIVE_INFINITY;
    const segments: ChunkSegment[] = header.chunks.filter((c) => c.lastTs >= fromMs && c.firstTs <= toMs).map((chunk) => ({ chunk, from: 0, to: chunk.count }));
    const ts = new Float64Array(Math.max(0, ...segments.map((s) => s.chunk.count)));
    const first = segments[0];
    if (first && first.chunk.firstTs < fromMs) {
      file.readTs(first.chunk, ts);
      first.from = firstRowFrom(ts, 0, first.chunk.count, fromMs);
    }
    const last = segments[segments.length - 1];
    if (last && last.chunk.lastTs > toMs) {
      if (last !== first || first.chunk.firstTs >= fromMs) file.readTs(last.chunk, ts);
      last.to = firstRowAfter(ts, 0, last.chunk.count, toMs);
    }
    const kept = segments.filter((s) => s.from < s.to);
    const end = kept[kept.length - 1];
    this.count = kept.reduce((n, s) => n + s.to - s.from, 0);
    this.lastTs = !end ? Number.NaN : end.to === end.chunk.count ? end.chunk.lastTs : ts[end.to - 1]!;
    const identity = map.every((v, i) => v === i || v === NONE);
    this.firsts = this.firstsOf(header, kept, map, window);
    this.blocks = new ChunkBlocks(file, kept, Math.max(1, ...kept.map((s) => s.to - s.from)), identity ? undefined : map);
  }

  next(): TickColumns | null {
    if (this.closed) return null;
    return this.blocks.next();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.file.close();
  }

  /** Each symbol's first record of the window, in the reader's symbols. */
  private firstsOf(header: TickCacheHeader, segments: ChunkSegment[], map: Uint16Array, window: ReplayWindow): TickColumns {
    const out = new TickColumns(header.symbols.length);
    const toMs = window.toMs ?? Number.POSITIVE_INFINITY;
    if (window.fromMs === undefined || window.fromMs <= header.firstTs) {
      // The window starts with the data: the header holds them.
      for (const f of header.firsts) {
        if (f[1] > toMs) continue;
        const j = out.end++;
        [out.sym[j], out.ts[j], out.last[j], out.bid[j], out.ask[j], out.size[j], out.maker[j], out.mark[j], out.index[j]] = f;
      }
    } else if (segments.length > 0) {
      // The first chunk is looked into from the window's start; further symbols are found from the chunk index.
      const found = new Set<number>();
      const seg = segments[0]!;
      const rows = new TickColumns(seg.to - seg.from);
      this.file.readRows(seg.chunk, seg.from, seg.to, rows, 0);
      rows.end = seg.to - seg.from;
      for (let i = 0; i < rows.end; i++) {
        if (found.has(rows.sym[i]!)) continue;
        found.add(rows.sym[i]!);
        copyRow(rows, i, out, out.end++);
      }
      for (const s of segments.slice(1)) {
        for (const [sym, row] of s.chunk.firstRows) {
          if (found.has(sym)) continue;
          found.add(sym);
          if (row < s.to) this.file.readRows(s.chunk, row, row + 1, out, out.end++);
        }
      }
    }
    for (let j = 0; j < out.end; j++) out.sym[j] = map[out.sym[j]!]!;
    return out;
  }
}
