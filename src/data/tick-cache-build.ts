// Building a data file's tick cache: its records (candles along their intrabar path) converted once into integer
// columns, in time order. A source out of time order is sorted on disk, never whole in memory: runs of a chunk each
// are sorted in memory and written, then merged (a stable sort: records of one instant keep the file's order).
import { randomBytes } from 'node:crypto';
import { rmSync, renameSync } from 'node:fs';
import { TickColumns, putRecord, sortByTime, type TickUnits } from '../domain/tick-columns.js';
import { replayRecords } from './replay-file.js';
import { TickChunkFile, TickChunkWriter, TickCacheWriteError, type CacheSymbol, type ChunkEntry, type TickCacheHeader } from './tick-cache-file.js';
import { ChunkBlocks, MergedBlocks, type ChunkSegment } from './tick-merge.js';

/** Records per chunk of a cache (a replay holds about one chunk per data file in memory). */
export const CHUNK_ROWS = 65_536;
/** Runs merged at once; more are merged in several passes. */
const MERGE_FAN_IN = 64;

export interface TickCacheBuild {
  source: TickCacheHeader['source'];
  /** Units of the symbols the simulator trades: other symbols' records are left out. */
  units: readonly TickUnits[];
  /** The cache file to write (atomically: a temporary file beside it, then a rename). */
  target: string;
  chunkRows?: number;
}

/** What was built: its records, and whether the source was out of time order and sorted in how many runs. */
export interface TickCacheBuilt {
  count: number;
  sortedRuns: number;
}

/**
 * Builds the cache of a data file. Throws a TickCacheWriteError when the cache cannot be written (the source's own
 * errors, a DataFileError, as they are); leaves no temporary file behind.
 */
export function buildTickCache(build: TickCacheBuild): TickCacheBuilt {
  const chunkRows = Math.max(1, build.chunkRows ?? CHUNK_ROWS);
  const tmp = (what: string) => `${build.target}.${process.pid}-${randomBytes(4).toString('hex')}.${what}`;
  const writers: TickChunkWriter[] = [];
  const writer = (what: string) => {
    const w = new TickChunkWriter(tmp(what));
    writers.push(w);
    return w;
  };
  try {
    const symbols: CacheSymbol[] = [];
    const bySymbol = new Map<string, { index: number; units: TickUnits | undefined }>();
    const unitsOf = new Map(build.units.map((u) => [u.symbol, u]));
    const block = new TickColumns(chunkRows);
    const runs = writer('runs');
    let inOrder = true;
    let lastTs = Number.NEGATIVE_INFINITY;
    const flush = () => {
      if (block.end === 0) return;
      sortByTime(block);
      runs.write(block);
      block.end = 0;
    };
    for (const rec of replayRecords(build.source.path)) {
      let sym = bySymbol.get(rec.symbol);
      if (!sym) {
        const units = unitsOf.get(rec.symbol);
        sym = { index: symbols.length, units };
        bySymbol.set(rec.symbol, sym);
        symbols.push(units ? { symbol: rec.symbol, tickSize: units.tickSize.toString(), stepSize: units.stepSize.toString() } : { symbol: rec.symbol });
        if (symbols.length > 0xffff) throw new RangeError(`${build.source.path}: more than ${0xffff} symbols`);
      }
      if (!sym.units) continue;
      if (rec.ts < lastTs) inOrder = false;
      else lastTs = rec.ts;
      putRecord(block, block.end++, sym.index, rec, sym.units);
      if (block.end === chunkRows) flush();
    }
    flush();
    const header = { source: build.source, symbols };
    const runCount = runs.chunks.length;
    if (inOrder) {
      runs.finish(header);
      publish(runs.path, build.target);
      return { count: runs.chunks.reduce((n, c) => n + c.count, 0), sortedRuns: 0 };
    }
    runs.close();
    // Each run one chunk; merged MERGE_FAN_IN at a time until one pass can merge them all into the cache.
    let file = runs.path;
    let sequences: ChunkEntry[][] = runs.chunks.map((c) => [c]);
    while (sequences.length > MERGE_FAN_IN) {
      const out = writer('merge');
      const merged: ChunkEntry[][] = [];
      for (let g = 0; g < sequences.length; g += MERGE_FAN_IN) {
        const before = out.chunks.length;
        mergeInto(file, sequences.slice(g, g + MERGE_FAN_IN), chunkRows, out);
        merged.push(out.chunks.slice(before));
      }
      out.close();
      rmSync(file, { force: true });
      file = out.path;
      sequences = merged;
    }
    const final = writer('final');
    mergeInto(file, sequences, chunkRows, final);
    final.finish(header);
    publish(final.path, build.target);
    return { count: final.chunks.reduce((n, c) => n + c.count, 0), sortedRuns: runCount };
  } finally {
    for (const w of writers) {
      w.close();
      rmSync(w.path, { force: true });
    }
  }
}

/** Merges sequences of chunks of `file` (each in time order) into chunks of `out`. */
function mergeInto(file: string, sequences: ChunkEntry[][], chunkRows: number, out: TickChunkWriter): void {
  const reader = TickChunkFile.open(file);
  try {
    // The blocks read from each sequence share about four chunks' worth of memory.
    const blockRows = Math.max(64, Math.min(chunkRows, Math.floor((4 * chunkRows) / sequences.length)));
    const segments = (seq: ChunkEntry[]): ChunkSegment[] => seq.map((chunk) => ({ chunk, from: 0, to: chunk.count }));
    const merged = new MergedBlocks(sequences.map((seq) => new ChunkBlocks(reader, segments(seq), blockRows)), chunkRows);
    for (let block = merged.next(); block; block = merged.next()) out.write(block);
  } finally {
    reader.close();
  }
}

function publish(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (err) {
    throw new TickCacheWriteError(`cannot write ${to}: ${(err as Error).message}`);
  }
}
