// Candle history downloads into a candle file: futures paged through F11, spot from what S10 serves (the venue has no
// spot history in v2); resumable (only what the file lacks is asked), merged, written atomically, gaps reported.
// Funding-rate downloads into a funding file: the latest settlements F16 serves, merged into what the file holds.
import { existsSync } from 'node:fs';
import { TIMEFRAME_MS, barOpenMs, type Timeframe, type VenueCandle } from '../domain/candles.js';
import type { Surface } from '../domain/market.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { Clock } from '../util/clock.js';
import { candleRow, dataFileMeta, describeDataFile, isoOf, readCandleFile, readFundingFile, sortedCandles, sortedFunding, writeDataFile, type CandleRow, type DataFileMeta, type FundingRow } from './data-file.js';

/** F11 serves at most 100 rows a request. */
export const HISTORY_PAGE_LIMIT = 100;

/** The venue's candle reads a download uses. */
export type CandleReader = Pick<ExchangeClient, 'historyCandles' | 'candles'>;

export interface DownloadTarget {
  symbol: string;
  surface: Surface;
}

export interface DownloadOptions {
  out: string;
  targets: DownloadTarget[];
  timeframe: Timeframe;
  /** First time wanted (the candle holding it is the first); required unless every target is spot with `latest`. */
  fromMs?: number;
  /** End of the window, exclusive (default: now); candles still forming are never written. */
  toMs?: number;
  /** Spot: take whatever S10 serves (the latest ~300 candles) even when it does not reach back to `fromMs`. */
  latest?: boolean;
  /** The venue, as the header's source names it (`download <venue> F11`). */
  venue: string;
  clock: Clock;
  /** Rows asked per F11 request (1–100). */
  limit?: number;
  /** The file is rewritten with what was fetched so far at most this often while a download runs. */
  checkpointMs?: number;
  /** Candles of the window settled so far (fetched or found missing) of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** Polled between requests: true stops the download, keeping what was fetched. */
  stopped?: () => boolean;
}

/** Candles of one symbol the venue did not serve: open times `fromMs` to `toMs` (exclusive), `candles` of them. */
export interface CandleGap {
  symbol: string;
  fromMs: number;
  toMs: number;
  candles: number;
}

export interface DownloadResult {
  meta: DataFileMeta;
  /** Candles in the file now; new ones written by this run. */
  candles: number;
  fetched: number;
  requests: { F11: number; S10: number };
  gaps: CandleGap[];
  /** What was taken otherwise than asked (a spot window starting where S10's candles do), in sentences. */
  notes: string[];
  /** Stopped before the end (`stopped()`), or by an error the venue kept answering (the file holds what came). */
  stopped: boolean;
  failure?: Error;
}

/** A download that cannot be done as asked: the file holds something else, or the venue cannot serve the window. */
export class DownloadRefusal extends Error {}

/** Open times `firstMs`, `firstMs + period`, … before `endMs` that `have` lacks, as runs [fromMs, toMs). */
function missingRuns(have: ReadonlySet<number>, firstMs: number, endMs: number, periodMs: number): Array<{ fromMs: number; toMs: number }> {
  const runs: Array<{ fromMs: number; toMs: number }> = [];
  for (let t = firstMs; t < endMs; t += periodMs) {
    if (have.has(t)) continue;
    const last = runs[runs.length - 1];
    if (last && last.toMs === t) last.toMs = t + periodMs;
    else runs.push({ fromMs: t, toMs: t + periodMs });
  }
  return runs;
}

const count = (run: { fromMs: number; toMs: number }, periodMs: number) => (run.toMs - run.fromMs) / periodMs;

/** The header's source: who wrote the file, from which venue, through which endpoints. */
function sourceOf(venue: string, targets: DownloadTarget[]): string {
  const endpoints = [...new Set(targets.map((t) => (t.surface === 'futures' ? 'F11' : 'S10')))].sort();
  return `download ${venue} ${endpoints.join(' ')}`;
}

/**
 * Downloads the candles of `targets` in the window into `opts.out` and says what came and what did not:
 * - futures: F11 pages of at most 100 rows, newest first: each asks both bounds (a window of limit × timeframe: the
 *   venue ignores an end time given alone), the next ends one candle before the oldest row returned (stepping by the
 *   window lost a candle per page seam), rows are deduplicated by open time and the still-forming candle dropped;
 *   a page with nothing in the window ends the walk back (the venue's history stops there);
 * - spot: the venue has no spot candle history in v2 (S10 serves the latest ~300 candles only): a window that starts
 *   before S10's oldest candle is refused unless `latest`, which takes what S10 serves (the window starts there).
 * A file already at `out` must hold candles of the same symbols and timeframe from the same venue: only the candles
 * it lacks are asked for, and the merged file (sorted, one row per symbol and open time) replaces it atomically.
 */
export async function downloadCandles(client: CandleReader, opts: DownloadOptions): Promise<DownloadResult> {
  const { timeframe: tf, clock } = opts;
  const periodMs = TIMEFRAME_MS[tf];
  const limit = Math.min(HISTORY_PAGE_LIMIT, Math.max(1, opts.limit ?? HISTORY_PAGE_LIMIT));
  const symbols = opts.targets.map((t) => t.symbol);
  const source = sourceOf(opts.venue, opts.targets);
  const nowMs = clock.now();
  // Candles open before `formingMs` are complete.
  const formingMs = barOpenMs(nowMs, tf);
  const endMs = Math.min(opts.toMs ?? nowMs, formingMs);
  const complete = (c: VenueCandle) => c.openMs + periodMs <= nowMs;

  const futures = opts.targets.filter((t) => t.surface === 'futures').map((t) => t.symbol);
  if (futures.length && opts.fromMs === undefined) throw new DownloadRefusal(`${futures.join(', ')}: a futures download needs a start (F11 pages history back to it)`);
  if (opts.fromMs !== undefined && barOpenMs(opts.fromMs, tf) >= endMs) {
    throw new DownloadRefusal(`no complete ${tf} candle between ${isoOf(opts.fromMs)} and ${isoOf(Math.min(opts.toMs ?? nowMs, nowMs))} (the candle open at ${isoOf(formingMs)} is still forming)`);
  }
  const existing = existsSync(opts.out) ? readExisting(opts.out, readCandleFile, { symbols, timeframe: tf, source, what: `${tf} candles` }) : undefined;
  const all = new Map<string, CandleRow>();
  const key = (symbol: string, ts: number) => `${symbol}\u0000${ts}`;
  for (const row of existing?.rows ?? []) all.set(key(row.symbol, row.ts), row);
  const requests = { F11: 0, S10: 0 };
  const notes: string[] = [];
  let fetched = 0;
  const take = (symbol: string, c: VenueCandle) => {
    const k = key(symbol, c.openMs);
    if (all.has(k)) return;
    all.set(k, candleRow(symbol, c.openMs, { open: c.open, high: c.high, low: c.low, close: c.close, volume: c.baseVolume }));
    fetched++;
  };

  // Spot first: one S10 read each, and a window S10 cannot serve is refused before anything is fetched.
  const windows = new Map<string, { firstMs: number; endMs: number; served?: VenueCandle[] }>();
  for (const { symbol, surface } of opts.targets) {
    if (surface === 'futures') {
      windows.set(symbol, { firstMs: barOpenMs(opts.fromMs!, tf), endMs });
      continue;
    }
    requests.S10++;
    const served = (await client.candles(symbol, tf)).filter(complete);
    const oldestMs = served[0]?.openMs;
    const askedMs = opts.fromMs !== undefined ? barOpenMs(opts.fromMs, tf) : undefined;
    const servedText = oldestMs === undefined ? 'no complete candle' : `${served.length} ${tf} candles, ${isoOf(oldestMs)} to ${isoOf(served[served.length - 1]!.openMs + periodMs)}`;
    if (oldestMs === undefined || (!opts.latest && askedMs !== undefined && askedMs < oldestMs)) {
      throw new DownloadRefusal(
        `${symbol} is a spot pair: the venue has no spot candle history in v2; S10 serves the latest candles only (now ${servedText}). ` +
          'Ask for a window within them, or take what it serves with --latest; `sextant record` records ticks from now on.',
      );
    }
    // Nothing older than S10's oldest candle exists in v2: the window starts there.
    const firstMs = Math.max(askedMs ?? oldestMs, oldestMs);
    if (askedMs !== undefined && askedMs < oldestMs) notes.push(`${symbol}: S10 serves ${tf} candles from ${isoOf(oldestMs)} on (no spot history in v2): the window starts there`);
    windows.set(symbol, { firstMs, endMs, served });
  }

  const plans = opts.targets.map(({ symbol, surface }) => {
    const w = windows.get(symbol)!;
    const have = new Set<number>();
    for (const row of all.values()) if (row.symbol === symbol) have.add(row.ts);
    return { symbol, surface, ...w, runs: missingRuns(have, w.firstMs, w.endMs, periodMs) };
  });
  const total = plans.reduce((n, p) => n + p.runs.reduce((m, run) => m + count(run, periodMs), 0), 0);
  let done = 0;
  opts.onProgress?.(0, total);

  const windowFrom = Math.min(...plans.map((p) => p.firstMs));
  const windowTo = Math.max(...plans.map((p) => p.endMs));
  const meta = dataFileMeta({
    kind: 'candles', timeframe: tf, symbols, source,
    fromMs: Math.min(windowFrom, existing?.meta.fromMs ?? windowFrom), toMs: Math.max(windowTo, existing?.meta.toMs ?? windowTo),
  });
  const save = () => writeDataFile(opts.out, meta, sortedCandles(all.values()));
  const checkpointMs = opts.checkpointMs ?? 30_000;
  let savedAtMs = clock.now();
  let stopped = false;
  let failure: Error | undefined;

  try {
    walk: for (const plan of plans) {
      for (const run of [...plan.runs].reverse()) {
        if (plan.surface === 'spot') {
          for (const c of plan.served ?? []) if (c.openMs >= run.fromMs && c.openMs < run.toMs) take(plan.symbol, c);
          done += count(run, periodMs);
          opts.onProgress?.(done, total);
          continue;
        }
        // Open time of the newest candle still to ask for in this run.
        let newestMs = run.toMs - periodMs;
        while (newestMs >= run.fromMs) {
          if (opts.stopped?.()) {
            stopped = true;
            break walk;
          }
          const startMs = Math.max(run.fromMs, newestMs - (limit - 1) * periodMs);
          requests.F11++;
          // The end bound lies inside the newest candle: it is in the window whether the venue's end is inclusive or not.
          const page = await client.historyCandles(plan.symbol, tf, { startMs, endMs: newestMs + periodMs - 1, limit });
          const inRun = page.filter((c) => c.openMs >= run.fromMs && c.openMs <= newestMs && (c.openMs - run.fromMs) % periodMs === 0 && complete(c));
          if (inRun.length === 0) {
            done += count({ fromMs: run.fromMs, toMs: newestMs + periodMs }, periodMs);
            opts.onProgress?.(done, total);
            break;
          }
          for (const c of inRun) take(plan.symbol, c);
          const oldestMs = Math.min(...inRun.map((c) => c.openMs));
          done += (newestMs - oldestMs) / periodMs + 1;
          newestMs = oldestMs - periodMs;
          opts.onProgress?.(done, total);
          if (clock.now() - savedAtMs >= checkpointMs) {
            save();
            savedAtMs = clock.now();
          }
        }
      }
    }
  } catch (err) {
    failure = err as Error;
    stopped = true;
  }
  save();

  const gaps: CandleGap[] = [];
  if (!stopped) {
    for (const plan of plans) {
      const have = new Set<number>();
      for (const row of all.values()) if (row.symbol === plan.symbol) have.add(row.ts);
      for (const run of missingRuns(have, plan.firstMs, plan.endMs, periodMs)) gaps.push({ symbol: plan.symbol, ...run, candles: count(run, periodMs) });
    }
  }
  return { meta, candles: all.size, fetched, requests, gaps, notes, stopped, ...(failure ? { failure } : {}) };
}

/**
 * The file a download resumes: what `read` reads (candles, funding rates) of the same symbols (and timeframe) from the
 * same venue, or a refusal.
 */
function readExisting<R>(out: string, read: (path: string) => { meta: DataFileMeta; rows: R[] }, want: { symbols: string[]; timeframe?: Timeframe; source: string; what: string }): { meta: DataFileMeta; rows: R[] } {
  let file: { meta: DataFileMeta; rows: R[] };
  try {
    file = read(out);
  } catch (err) {
    throw new DownloadRefusal(`${out} exists and cannot be resumed: ${(err as Error).message}; choose another output file`);
  }
  const { meta } = file;
  const sameSymbols = meta.symbols.length === want.symbols.length && want.symbols.every((s) => meta.symbols.includes(s));
  const problems = [
    ...(meta.timeframe !== want.timeframe || !sameSymbols ? [`it holds ${describeDataFile(meta)}, not ${want.what} of ${want.symbols.join(', ')}`] : []),
    ...(meta.source !== want.source ? [`it was written by "${meta.source}", not "${want.source}"`] : []),
  ];
  if (problems.length) throw new DownloadRefusal(`${out} exists and cannot be resumed: ${problems.join('; ')}; choose another output file`);
  return file;
}

/** F16 serves at most the latest 100 settlements of a contract: it takes no time window, nothing older is reachable. */
export const FUNDING_HISTORY_LIMIT = 100;

/** The venue's funding read a download uses. */
export type FundingReader = Pick<ExchangeClient, 'fundingHistory'>;

export interface FundingDownloadOptions {
  out: string;
  /** Futures contracts. */
  symbols: string[];
  /** The venue, as the header's source names it (`download <venue> F16`). */
  venue: string;
  clock: Clock;
  /** Settlements asked per contract (1–100; default 100). */
  limit?: number;
}

export interface FundingDownloadResult {
  meta: DataFileMeta;
  /** Settlements in the file now; new ones written by this run. */
  rates: number;
  fetched: number;
  requests: { F16: number };
  /** What the venue could not serve (settlements between the file's and the oldest served), in sentences. */
  notes: string[];
}

/**
 * Downloads the settled funding rates of `symbols` into `opts.out`: one F16 read each, the latest `limit` (at most
 * 100: about 33 days at 8 h; F16 takes no time window, so nothing older can be had). A file already at `out` must
 * hold funding rates of the same symbols from the same venue: what it holds is kept and the new settlements merged
 * in (a settlement it holds is not replaced), so downloading again before rates roll off F16 extends a history.
 * The header's span runs from the oldest settlement to now (every settlement in it up to now is in the file, but
 * for a hole between an older file and the oldest F16 served, which `notes` names).
 */
export async function downloadFunding(client: FundingReader, opts: FundingDownloadOptions): Promise<FundingDownloadResult> {
  const limit = Math.min(FUNDING_HISTORY_LIMIT, Math.max(1, opts.limit ?? FUNDING_HISTORY_LIMIT));
  const source = `download ${opts.venue} F16`;
  const existing = existsSync(opts.out) ? readExisting(opts.out, readFundingFile, { symbols: opts.symbols, source, what: 'funding rates' }) : undefined;
  const all = new Map<string, FundingRow>();
  const key = (symbol: string, ms: number) => `${symbol}\u0000${ms}`;
  for (const row of existing?.rows ?? []) all.set(key(row.symbol, row.fundingTimeMs), row);
  const requests = { F16: 0 };
  const notes: string[] = [];
  let fetched = 0;
  const nowMs = opts.clock.now();
  let oldestMs = existing?.meta.fromMs ?? Number.POSITIVE_INFINITY;
  for (const symbol of opts.symbols) {
    requests.F16++;
    const served = (await client.fundingHistory(symbol, limit)).filter((s) => s.fundingTimeMs <= nowMs);
    for (const s of served) {
      const k = key(symbol, s.fundingTimeMs);
      if (all.has(k)) continue;
      all.set(k, { symbol, fundingTimeMs: s.fundingTimeMs, rate: s.rate.toString() });
      fetched++;
    }
    const oldestServed = Math.min(...served.map((s) => s.fundingTimeMs));
    oldestMs = Math.min(oldestMs, oldestServed);
    const heldTo = existing?.meta.toMs;
    if (heldTo !== undefined && served.length > 0 && oldestServed > heldTo) {
      notes.push(`${symbol}: F16 serves settlements from ${isoOf(oldestServed)} on; ${opts.out} held them up to ${isoOf(heldTo)}: any between are missing`);
    }
  }
  const rows = sortedFunding(all.values());
  const fromMs = rows.length ? Math.min(oldestMs, rows[0]!.fundingTimeMs) : nowMs;
  // toMs is exclusive: a settlement at this very instant is in the file.
  const meta = dataFileMeta({ kind: 'funding', symbols: opts.symbols, source, fromMs, toMs: Math.max(nowMs + 1, existing?.meta.toMs ?? 0) });
  writeDataFile(opts.out, meta, rows);
  return { meta, rates: rows.length, fetched, requests, notes };
}
