// `sextant optimize --config <file> --spec <file>`: walk-forward optimisation of one strategy instance's params,
// out-of-sample Monte Carlo and the lookahead check, run on worker threads here or by `sextant worker`s on a Redis
// queue; writes optimize.json, optimize.csv and optimize.html, and prints the folds' choices and the verdicts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError, type LoadedConfig } from '../../config/load.js';
import { readOptimizeSpec, type OptimizeSpec } from '../../config/optimize-spec.js';
import { isoOf } from '../../data/data-file.js';
import type { BacktestJob, JobCollect, JobRunner } from '../../research/jobs.js';
import type { JobSlice } from '../../research/lookahead.js';
import { writeOptimizeFiles } from '../../research/optimize-files.js';
import { renderOptimizeReport } from '../../research/optimize-report.js';
import { asTradedNote } from '../../research/monte-carlo.js';
import { optimize, type OptimizeResult } from '../../research/optimizer.js';
import { numberText } from '../../research/objective.js';
import { QueueRunner } from '../../research/queue-runner.js';
import { DEFAULT_QUEUE } from '../../research/queue.js';
import { candidates } from '../../research/search-space.js';
import { loadStrategy } from '../../strategy/loader.js';
import { sha256File } from '../../util/file-hash.js';
import { redactUrlCredentials, registerUrlCredentials } from '../../util/logger.js';
import { simulatorInstruments } from '../instrument-list.js';
import { jobDataFiles, jobStrategyFiles, localJobRunner } from '../job-run.js';
import { warmDataCache } from '../sim-market.js';
import { backtestRange, progressBar } from './backtest.js';
import type { Io, SetCode } from './io.js';
import { loadForCommand, reportIssues } from './load-for-command.js';
import { barMs, cutDataFile, dataSpan } from './optimize-data.js';

interface OptimizeOptions {
  config: string;
  spec: string;
  data?: string;
  from?: string;
  to?: string;
  out?: string;
  queue?: string;
  queueName: string;
}

/** Candidates whose params the strategy's own schema refuses: the first few, in words (nothing runs then). */
async function refusedParams(loaded: LoadedConfig, spec: OptimizeSpec): Promise<string[]> {
  const instance = loaded.config.strategies.find((s) => s.id === spec.strategy)!;
  const definition = await loadStrategy(instance.name, loaded.config.strategyDirs);
  const problems: string[] = [];
  for (const c of candidates(spec.params, spec.search)) {
    const parsed = definition.params.safeParse({ ...instance.params, ...c.params });
    if (parsed.success) continue;
    const issue = parsed.error.issues[0]!;
    const hint = issue.code === 'invalid_type' && issue.expected === 'string' ? ' (decimals as text: quote them, "0.5")' : '';
    problems.push(`${spec.strategy} (${instance.name}) refuses ${JSON.stringify(c.params)}: ${issue.path.join('.') || '(params)'}: ${issue.message}${hint}`);
    if (problems.length >= 5) break;
  }
  return problems;
}

/** The summary printed at the end: each fold's choice and scores, the stitched out-of-sample figures, the verdicts. */
export function optimizeSummary(r: OptimizeResult, report: string): string[] {
  const metric = r.spec.objective.metric;
  const lines = [
    `${r.candidates.length} candidates, ${r.folds.length} fold${r.folds.length === 1 ? '' : 's'} (${r.spec.walkForward.mode}), ${r.jobs} backtests; objective ${metric}${r.spec.objective.minTrades ? ` (min ${r.spec.objective.minTrades} closing fills)` : ''}`,
  ];
  for (const f of r.folds) {
    lines.push(
      `fold ${f.index + 1}: in ${isoOf(f.inSample.fromMs)} → ${isoOf(f.inSample.toMs)}, out ${isoOf(f.outOfSample.fromMs)} → ${isoOf(f.outOfSample.toMs)}: ` +
        `${f.best.candidate} ${JSON.stringify(f.best.params)}  in-sample ${f.inSampleRun.score.text}  out-of-sample ${f.outOfSampleRun.score.text}  efficiency ${f.efficiency === null ? 'n/a' : numberText(f.efficiency)}`,
    );
  }
  const o = r.outOfSample;
  lines.push(
    `out of sample: strategy PnL ${o.strategyPnl}, max drawdown ${o.maxDrawdownPct} %, ${o.trades} closed round trips; mean objective${metric === 'strategyPnl' ? ' per day' : ''} in ${numberText(o.meanInSample)}, out ${numberText(o.meanOutOfSample)}: degradation (out / in) ${o.efficiency === null ? 'n/a (the in-sample mean is not above 0)' : numberText(o.efficiency)}`,
  );
  const mc = r.monteCarlo;
  if (mc && mc.runs > 0) {
    const at = (p: (typeof mc.percentiles)[number]) => `p${p.p} ${p.finalPnl} (dd ${p.maxDrawdownPct} %)`;
    lines.push(
      `monte carlo (${mc.runs} paths of ${mc.trades} trades): final PnL ${mc.percentiles.map(at).join(', ')}; ${mc.lossProbabilityPct} % end below the start`,
      `monte carlo: ${asTradedNote(mc, o.strategyPnl)}`,
    );
  } else if (mc) lines.push('monte carlo: no out-of-sample trade closed, nothing to resample');
  const v = r.lookahead;
  if (v) {
    const bad = v.cuts.find((c) => c.difference);
    lines.push(
      bad
        ? `lookahead: PEEKS AHEAD — cut at ${isoOf(bad.cutMs)}, decision ${bad.difference!.index + 1} differs (whole data: ${bad.difference!.full ? `${isoOf(bad.difference!.full.ts)} ${bad.difference!.full.intent}` : 'none'}; cut data: ${bad.difference!.cut ? `${isoOf(bad.difference!.cut.ts)} ${bad.difference!.cut.intent}` : 'none'})`
        : `lookahead: none found (${v.cuts.length} cuts, ${v.decisions} decisions on the whole data, margin ${v.marginMs} ms)`,
    );
  }
  lines.push(`report: ${report}`);
  return lines;
}

async function optimizeCommand(opts: OptimizeOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { instrumentsFor: (loaded) => simulatorInstruments(loaded.config) });
  if (!check) return 1;
  const { loaded } = check;
  const cfg = loaded.config;
  let spec: OptimizeSpec;
  try {
    spec = readOptimizeSpec(opts.spec);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    reportIssues(err.issues, opts.spec, io);
    return 1;
  }
  const instance = cfg.strategies.find((s) => s.id === spec.strategy);
  if (!instance) {
    io.err(`${opts.spec}: strategy: no instance ${spec.strategy} in ${opts.config} (its instances: ${cfg.strategies.map((s) => s.id).join(', ')})`);
    return 1;
  }
  let runner: JobRunner | undefined;
  try {
    const refused = await refusedParams(loaded, spec);
    if (refused.length) {
      for (const line of refused) io.err(line);
      return 1;
    }
    const range = backtestRange(opts);
    // One file: the jobs name it, and the lookahead check cuts copies of it. Several (the config's list, replayed
    // as one): the jobs replay the config's, and the check cuts the replay at each time (no copies).
    const dataFiles = [range.dataFile ?? cfg.backtest.data].flat();
    const dataFile = dataFiles.length === 1 ? dataFiles[0]! : undefined;
    const span = dataSpan(dataFiles, range.fromMs, range.toMs);
    const out = opts.out ?? join(cfg.backtest.out, 'optimize');
    mkdirSync(out, { recursive: true });
    const configFile = resolve(opts.config);
    const configHash = await sha256File(configFile);
    const hashes = new Map<string, string>();
    const hashOf = async (file: string) => {
      if (!hashes.has(file)) hashes.set(file, await sha256File(file));
      return hashes.get(file)!;
    };
    for (const file of jobDataFiles(cfg, range)) await hashOf(file);
    const strategyHashes: Record<string, string> = {};
    for (const file of jobStrategyFiles(cfg, spec.strategy)) strategyHashes[file] = await hashOf(file);
    const job = (id: string, params: Record<string, unknown>, r: JobSlice, collect?: JobCollect): BacktestJob => ({
      id,
      configFile,
      configHash,
      strategy: spec.strategy,
      params,
      range: r,
      dataHashes: Object.fromEntries(jobDataFiles(cfg, r).map((f) => [f, hashes.get(f)!])),
      strategyHashes,
      ...(collect ? { collect } : {}),
    });
    const cutData = async (cutMs: number) => {
      const file = resolve(out, 'lookahead', `data-to-${isoOf(cutMs).replace(/[:.]/g, '-')}.jsonl`);
      cutDataFile(dataFile!, cutMs, file);
      await hashOf(file);
      return file;
    };
    // The data's cache built once here, before backtests start together (each would build it otherwise).
    warmDataCache(loaded, range.dataFile);
    // Worker threads here, or `sextant worker` processes taking the backtests from a Redis queue.
    if (opts.queue) {
      registerUrlCredentials(opts.queue);
      const queued = new QueueRunner({ redis: opts.queue, queue: opts.queueName });
      io.err(
        `optimize: backtests queued on ${queued.queueName} at ${redactUrlCredentials(opts.queue)}; workers take them: sextant worker --redis <url> --queue ${queued.queueName}`,
      );
      runner = queued;
    } else runner = localJobRunner();
    // What was in flight at a cut: a tickers poll and its round trip, and on bars the bar still forming.
    const marginMs = cfg.daemon.polls.tickersMs + cfg.backtest.latencyMs + barMs(dataFiles);
    const result = await optimize(runner, {
      spec,
      span,
      ...(dataFile ? { dataFile, cutData } : {}),
      dataFiles,
      baseParams: instance.params as Record<string, unknown>,
      marginMs,
      job,
      onBatch: (label) => progressBar(label, 'backtests'),
    });
    writeOptimizeFiles(out, result);
    const report = join(out, 'optimize.html');
    writeFileSync(report, renderOptimizeReport(result, `Optimisation: ${spec.strategy} (${instance.name})`));
    for (const line of optimizeSummary(result, report)) io.out(line);
    return 0;
  } catch (err) {
    io.err(`optimize failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await runner?.close();
  }
}

export function registerOptimize(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('optimize')
    .description(
      "walk-forward optimisation of a strategy's params (grid or random search, successive halving), Monte Carlo of the out-of-sample trades and a lookahead check; writes optimize.json, optimize.csv, optimize.html",
    )
    .option('-c, --config <file>', 'config file', 'config/backtest.yaml')
    .requiredOption('--spec <file>', 'optimisation spec (YAML; see config/optimize.example.yaml)')
    .option('--data <file>', 'market data (JSON lines); default: backtest.data')
    .option('--from <iso>', "start of the data used; default: the data's start")
    .option('--to <iso>', "end of the data used (the last window ends there); default: the data's end")
    .option('--out <dir>', 'output folder; default: <backtest.out>/optimize')
    .option(
      '--queue <redis-url>',
      'the backtests go to a Redis queue, run by `sextant worker` processes in the same file tree (instead of worker threads here)',
    )
    .option('--queue-name <name>', "the queue's name", DEFAULT_QUEUE)
    .action(async (opts: OptimizeOptions) => setCode(await optimizeCommand(opts, io)));
}
