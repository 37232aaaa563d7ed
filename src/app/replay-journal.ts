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
import { divergence, renderDivergence, type DivergenceOrder, type DivergenceReport } from '../report/divergence.js';
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

/** A journal's orders with their fills, in the report's shape: those written in [fromMs, toMs] only. */
export function journalOrders(journal: Journal, fromMs = -Infinity, toMs = Infinity): DivergenceOrder[] {
  const fills = new Map<string, DivergenceOrder['fills'][number][]>();
  for (const f of journal.fills()) fills.set(f.clientOid, [...(fills.get(f.clientOid) ?? []), { price: f.price, size: f.size, fee: f.fee, atMs: f.atMs }]);
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

/** Per symbol, the stretches between two records of the tick files (candle files have none: they are whole periods). */
export function dataGaps(data: string | readonly string[], gapMs: number): Map<string, Array<[number, number]>> {
  const gaps = new Map<string, Array<[number, number]>>();
  const last = new Map<string, number>();
  for (const file of dataFileList(data)) {
    if (readDataFileMeta(file)?.kind !== 'ticks') continue;
    eachReplayRecord(file, (r) => {
      const before = last.get(r.symbol);
      if (before !== undefined && r.ts - before >= gapMs) gaps.set(r.symbol, [...(gaps.get(r.symbol) ?? []), [before, r.ts]]);
      last.set(r.symbol, r.ts);
    });
  }
  return gaps;
}

/** The span the replay covers: the data files' own, narrowed by --from and --to. */
function dataWindow(data: string | readonly string[], opts: ReplayJournalOptions): { fromMs: number; toMs: number } {
  const metas = dataFileList(data).map((file) => readDataFileMeta(file));
  const from = Math.min(...metas.map((m) => m?.fromMs ?? -Infinity));
  const to = Math.max(...metas.map((m) => m?.toMs ?? Infinity));
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
  const window = dataWindow(data, opts);
  const live = readJournal(opts.journalFile, prefix, window.fromMs, window.toMs);
  const sim = readJournal(join(outDir, 'journal.sqlite'), prefix);
  const report = divergence(
    { source: opts.journalFile, orders: live },
    { source: `backtest of ${dataFileList(data).join(', ')} (${outDir})`, orders: sim, fillModel: cfg.sim.fills, latencyMs: cfg.backtest.latencyMs },
    // The replay polls on its own periods, not at the live polls' instants: twins decided on one tickers poll are
    // written up to a tickers period apart without any latency.
    {
      ...DIVERGENCE_RULES,
      simArrivalMs: Math.floor(cfg.backtest.latencyMs / 2),
      arrivalToleranceMs: cfg.daemon.polls.tickersMs,
      gaps: dataGaps(data, DIVERGENCE_RULES.gapMs),
    },
  );
  writeFileSync(join(outDir, 'divergence.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'divergence.html'), renderDivergence(report));
  return { result, report };
}
