// The market events of a backtest's data files as one feed in time order: each file from its tick cache (built when
// missing or stale), several files merged (records of one instant: the earlier file's first, then in file order).
// A cache that cannot be written leaves the file read as text; the run goes on.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { TickColumns, copyRow, type TickFeed, type TickUnits } from '../domain/tick-columns.js';
import { buildTickCache, CHUNK_ROWS, type TickCacheBuilt } from './tick-cache-build.js';
import { TickCacheWriteError, TickChunkFile, type TickCacheHeader } from './tick-cache-file.js';
import { CacheFeed, symbolMap, type ReplayWindow } from './tick-cache-feed.js';
import { MergedBlocks } from './tick-merge.js';
import { SourceFeed, scanSource } from './tick-source-feed.js';

/** The folder `backtest.cache: auto` keeps a data file's cache in, beside the file. */
export const AUTO_CACHE_FOLDER = '.sextant-cache';

export interface TickFeedOptions extends ReplayWindow {
  /** `backtest.cache`: `auto` (a folder beside each data file), `off` (files read as text), or a folder. */
  cache: string;
  /** Records per chunk of a cache built now (default CHUNK_ROWS; small in tests). */
  chunkRows?: number;
  /** Told, in a sentence, when a file is read as text though a cache was asked for, or held in memory to be sorted. */
  onNote?: (message: string) => void;
  /** Where a file out of time order is sorted when it has no cache (default: the system's temporary folder). */
  sortFolder?: string;
  /** Told of every cache built, with its source's full path (tests, logs). */
  onBuilt?: (source: string, built: TickCacheBuilt) => void;
}

/** Where the cache of `file` lives for a `backtest.cache` setting (null: `off`). */
export function tickCachePath(file: string, cache: string): string | null {
  if (cache === 'off') return null;
  const source = resolve(file);
  const folder = cache === 'auto' ? join(dirname(source), AUTO_CACHE_FOLDER) : resolve(cache);
  // The source's full path named by a digest: one folder may hold the caches of files of the same name.
  return join(folder, `${basename(source)}.${createHash('sha256').update(source).digest('hex').slice(0, 12)}.ticks`);
}

/** The records of `files` (one file, or several merged in time order) in the window, converted in `units`. */
export function openTickFeed(files: string | readonly string[], units: readonly TickUnits[], opts: TickFeedOptions): TickFeed {
  const list = typeof files === 'string' ? [files] : files;
  const feeds: TickFeed[] = [];
  try {
    for (const file of list) feeds.push(openFileFeed(file, units, opts));
  } catch (err) {
    for (const feed of feeds) feed.close();
    throw err;
  }
  return feeds.length === 1 ? feeds[0]! : new MergedFeed(feeds, opts.chunkRows ?? CHUNK_ROWS);
}

function openFileFeed(file: string, units: readonly TickUnits[], opts: TickFeedOptions): TickFeed {
  const target = tickCachePath(file, opts.cache);
  if (!target) return fromSource(file, units, opts);
  const source = sourceOf(file);
  const cached = openCache(target, source, units, opts);
  if (cached) return cached;
  try {
    build(source, units, target, opts);
  } catch (err) {
    if (!(err instanceof TickCacheWriteError)) throw err;
    return fromSource(file, units, opts, `no tick cache (${err.message})`);
  }
  return openCache(target, source, units, opts) ?? fromSource(file, units, opts, `the tick cache ${target} just built cannot be read`);
}

function sourceOf(file: string): TickCacheHeader['source'] {
  const stat = statSync(file);
  return { path: resolve(file), size: stat.size, mtimeMs: stat.mtimeMs };
}

/** Builds the cache of a source into `target` (its folder made when missing). */
function build(source: TickCacheHeader['source'], units: readonly TickUnits[], target: string, opts: TickFeedOptions): void {
  try {
    mkdirSync(dirname(target), { recursive: true });
  } catch (err) {
    throw new TickCacheWriteError(`cannot create ${dirname(target)}: ${(err as Error).message}`);
  }
  const built = buildTickCache({ source, units, target, ...(opts.chunkRows ? { chunkRows: opts.chunkRows } : {}) });
  opts.onBuilt?.(source.path, built);
}

/**
 * A file read as text (`why`, when given, is told: a cache was asked for). One out of time order is sorted into a
 * cache in the system's temporary folder, removed at once (the feed keeps it open); failing that, held in memory.
 */
function fromSource(file: string, units: readonly TickUnits[], opts: TickFeedOptions, why?: string): TickFeed {
  if (why) opts.onNote?.(`${file}: ${why}: the file is read as text`);
  const scan = scanSource(file, units, opts);
  if (scan.inOrder) return new SourceFeed(file, units, opts, opts.chunkRows ?? CHUNK_ROWS, scan);
  let folder: string | undefined;
  try {
    const parent = opts.sortFolder ?? tmpdir();
    try {
      folder = mkdtempSync(join(parent, 'sextant-ticks-'));
    } catch (err) {
      throw new TickCacheWriteError(`cannot create a folder in ${parent}: ${(err as Error).message}`);
    }
    const target = join(folder, basename(file));
    const source = sourceOf(file);
    build(source, units, target, opts);
    const sorted = openCache(target, source, units, opts);
    if (sorted) return sorted;
  } catch (err) {
    if (!(err instanceof TickCacheWriteError)) throw err;
  } finally {
    if (folder) rmSync(folder, { recursive: true, force: true });
  }
  opts.onNote?.(`${file}: out of time order and no folder to sort it in: its records are held in memory and sorted`);
  return new SourceFeed(file, units, opts, opts.chunkRows ?? CHUNK_ROWS, scan);
}

/** The feed of a cache made from the source as it is now, in these units; null when there is none. */
function openCache(target: string, source: TickCacheHeader['source'], units: readonly TickUnits[], window: ReplayWindow): CacheFeed | null {
  let file: TickChunkFile;
  try {
    file = TickChunkFile.open(target);
  } catch {
    return null;
  }
  try {
    const header = file.readHeader();
    const map = header && sameSource(header.source, source) ? symbolMap(header.symbols, units) : null;
    if (!header || !map) {
      file.close();
      return null;
    }
    return new CacheFeed(file, header, map, window);
  } catch (err) {
    file.close();
    throw err;
  }
}

function sameSource(a: TickCacheHeader['source'], b: TickCacheHeader['source']): boolean {
  return a.path === b.path && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** Several files' feeds as one, in time order; of one instant, the earlier file's records first. */
class MergedFeed implements TickFeed {
  readonly count: number;
  readonly lastTs: number;
  readonly firsts: TickColumns;
  private readonly merged: MergedBlocks;

  constructor(
    private readonly feeds: readonly TickFeed[],
    blockRows: number,
  ) {
    this.count = feeds.reduce((n, f) => n + f.count, 0);
    const ends = feeds.filter((f) => f.count > 0).map((f) => f.lastTs);
    this.lastTs = ends.length ? Math.max(...ends) : Number.NaN;
    // A symbol's first record is its earliest; of one instant, the earlier file's.
    const rowOf = new Map<number, number>();
    const firsts = new TickColumns(feeds.reduce((n, f) => n + f.firsts.rows, 0));
    for (const f of feeds) {
      for (let i = f.firsts.begin; i < f.firsts.end; i++) {
        const sym = f.firsts.sym[i]!;
        const row = rowOf.get(sym);
        if (row !== undefined && firsts.ts[row]! <= f.firsts.ts[i]!) continue;
        const j = row ?? firsts.end++;
        rowOf.set(sym, j);
        copyRow(f.firsts, i, firsts, j);
      }
    }
    this.firsts = firsts;
    this.merged = new MergedBlocks(feeds, blockRows);
  }

  next(): TickColumns | null {
    return this.merged.next();
  }

  close(): void {
    for (const f of this.feeds) f.close();
  }
}
