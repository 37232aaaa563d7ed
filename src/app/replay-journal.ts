// `sextant backtest --replay-journal <journal>`: a recorded live session's market (the tape `sextant record` wrote
// beside it) replayed through the simulator with the session's config, and each live order of the journal paired with
// its simulated twin: divergence.json and divergence.html beside the backtest's own files.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import { dataFileList, readDataFileMeta } from '../data/data-file.js';
import { eachReplayRecord } from '../data/replay-file.js';
import type { Journal } from '../journal/journal.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { divergence, type DivergenceOrder, type DivergenceReport } from '../report/divergence.js';
import { renderDivergence } from '../report/divergence-page.js';
import type { Logger } from '../util/logger.js';
import { runBacktest, type BacktestResult } from './backtest.js';

export interface ReplayJournalOptions {
  /** The live session's journal (SQLite file). */
  journalFile: string;
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
  outDir?: string;
  onProgress?: (done: number, total: number) => void;
}

/** Pairing and cause rules of the report: twins within 5 s, fills within 1 s are one, a minute per PnL sample. */
export const DIVERGENCE_RULES = { pairWindowMs: 5000, timeToleranceMs: 1000, gapMs: 5000, sampleMs: 60_000 };

/** A journal's orders with their fills, in the report's shape: those written in [fromMs, toMs], and their fills up to toMs. */
export function journalOrders(journal: Journal, fromMs = -Infinity, toMs = Infinity): DivergenceOrder[] {
  const fills = new Map<string, DivergenceOrder['fills'][number][]>();
  for (const f of journal.fills()) {
    if (f.atMs > toMs) continue;
    const list = fills.get(f.clientOid);
    const fill = { price: f.price, size: f.size, fee: f.fee, atMs: f.atMs };
    if (list) list.push(fill);
    else fills.set(f.clientOid, [fill]);
  }
  return journal
    .allOrders()
    .filter((o) => o.createdAtMs >= fromMs && o.createdAtMs <= toMs)
    .map((o) => ({
      clientOid: o.clientOid,
      strategyId: o.strategyId,
      symbol: o.symbol,
      side: o.side,
      kind: o.kind,
      timeInForce: o.timeInForce,
      price: o.price,
      size: o.size,
      isTrigger: o.isTrigger,
      triggerPrice: o.triggerPrice,
      createdAtMs: o.createdAtMs,
      state: o.state,
      error: o.lastError,
      flights: flightsOf(journal.history(o.clientOid)),
      fills: (fills.get(o.clientOid) ?? []).sort((a, b) => a.atMs - b.atMs),
    }));
}

/** An order's requests as its history tells them: from `written` or `cancel requested` to the next event (the answer). */
export function flightsOf(history: ReadonlyArray<{ event: string; atMs: number }>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  history.forEach((h, i) => {
    const next = history[i + 1];
    if (next && (h.event === 'written' || h.event === 'cancel requested')) out.push([h.atMs, next.atMs]);
  });
  return out;
}

/**
 * Per symbol, the stretches of at least `gapMs` between two records of the tick files (candle files have none: they
 * are whole periods), and the first and last record's times (a recording's header has a start only).
 */
export function dataGaps(data: string | readonly string[], gapMs: number): { gaps: Map<string, Array<[number, number]>>; firstMs: number; lastMs: number } {
  const gaps = new Map<string, Array<[number, number]>>();
  const last = new Map<string, number>();
  let firstMs = Infinity;
  let lastMs = -Infinity;
  for (const file of dataFileList(data)) {
    if (readDataFileMeta(file)?.kind !== 'ticks') continue;
    eachReplayRecord(file, (r) => {
      const before = last.get(r.symbol);
      if (before !== undefined && r.ts - before >= gapMs) {
        const list = gaps.get(r.symbol);
        if (list) list.push([before, r.ts]);
        else gaps.set(r.symbol, [[before, r.ts]]);
      }
      last.set(r.symbol, r.ts);
      firstMs = Math.min(firstMs, r.ts);
      lastMs = Math.max(lastMs, r.ts);
    });
  }
  return { gaps, firstMs, lastMs };
}

/** The span the replay covers: the data files' own (a recording's: to its last record), narrowed by --from and --to. */
function dataWindow(
  data: string | readonly string[],
  opts: ReplayJournalOptions,
  records: { firstMs: number; lastMs: number },
): { fromMs: number; toMs: number } {
  const metas = dataFileList(data).map((file) => readDataFileMeta(file));
  const from = Math.min(...metas.map((m) => m?.fromMs ?? records.firstMs));
  const to = Math.max(...metas.map((m) => m?.toMs ?? records.lastMs));
  return { fromMs: Math.max(from, opts.fromMs ?? -Infinity), toMs: Math.min(to, opts.toMs ?? Infinity) };
}

function readJournal(file: string, clientOidPrefix: string, fromMs?: number, toMs?: number): DivergenceOrder[] {
  if (!existsSync(file)) throw new Error(`--replay-journal: no journal at ${file}`);
  const journal = new SqliteJournal(file, { clientOidPrefix });
  try {
    return journalOrders(journal, fromMs, toMs);
  } finally {
    journal.close();
  }
}

/** Replays the data through the simulator and writes the divergence report of the journal's orders against it. */
export async function replayJournal(
  loaded: LoadedConfig,
  logger: Logger,
  opts: ReplayJournalOptions,
): Promise<{ result: BacktestResult; report: DivergenceReport }> {
  const cfg = loaded.config;
  const prefix = cfg.journal.clientOidPrefix;
  const result = await runBacktest(loaded, logger, {
    ...(opts.dataFile ? { dataFile: opts.dataFile } : {}),
    ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}),
    ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}),
    ...(opts.outDir ? { outDir: opts.outDir } : {}),
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  const outDir = result.outDir;
  const data = opts.dataFile ?? cfg.backtest.data;
  const scanned = dataGaps(data, DIVERGENCE_RULES.gapMs);
  const window = dataWindow(data, opts, scanned);
  const live = readJournal(opts.journalFile, prefix, window.fromMs, window.toMs);
  const sim = readJournal(join(outDir, 'journal.sqlite'), prefix);
  const report = divergence(
    window,
    { source: opts.journalFile, orders: live },
    { source: `backtest of ${dataFileList(data).join(', ')} (${outDir})`, orders: sim, fillModel: cfg.sim.fills, latencyMs: cfg.backtest.latencyMs },
    // The replay polls on its own periods, not at the live polls' instants: twins decided on one tickers poll are
    // written up to a tickers period apart without any latency.
    {
      ...DIVERGENCE_RULES,
      simArrivalMs: Math.floor(cfg.backtest.latencyMs / 2),
      arrivalToleranceMs: cfg.daemon.polls.tickersMs,
      gaps: scanned.gaps,
    },
  );
  writeFileSync(join(outDir, 'divergence.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'divergence.html'), renderDivergence(report));
  return { result, report };
}
