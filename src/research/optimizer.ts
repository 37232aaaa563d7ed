// The optimiser: the candidates of the search space, each fold's in-sample selection (successive halving when
// asked: rung after rung on growing prefixes of the in-sample window, the best 1/eta kept), the chosen params run
// out of sample, the out-of-sample trades resampled (Monte Carlo) and the lookahead check on the last choice. It
// runs nothing itself: it hands batches of jobs to a JobRunner, one batch per rung (all folds together), one for
// the chosen params in and out of sample, one for the lookahead check.
import type { OptimizeSpec } from '../config/optimize-spec.js';
import type { Metrics } from '../report/metrics.js';
import { rungBudgets, promote } from './halving.js';
import { heatmapGrid, type HeatmapGrid } from './heatmap.js';
import type { BacktestJob, JobCollect, JobResult, JobRunner } from './jobs.js';
import { checkLookahead, type JobSlice, type LookaheadVerdict } from './lookahead.js';
import { monteCarlo, type MonteCarloResult } from './monte-carlo.js';
import { compareScores, efficiency, perWindow, score, type Score } from './objective.js';
import { candidates as searchCandidates, type Candidate } from './search-space.js';
import { Decimal } from '../domain/decimal.js';
import { seriesDrawdownPct, stitchEquity } from './equity-series.js';
import { jobRange, walkForwardFolds, type Window } from './walk-forward.js';

export interface OptimizePlan {
  spec: OptimizeSpec;
  /** The data's span: first event included, last event + 1 excluded. */
  span: Window;
  /** The replayed file; none: the config's data (several files replayed as one). */
  dataFile?: string;
  /** The files replayed (for the record). */
  dataFiles: string[];
  /** The instance's own params (the config's): the candidates' params go over them. */
  baseParams: Record<string, unknown>;
  /** Lookahead margin when the spec names none. */
  marginMs: number;
  /** A job: the candidate's params on a range (config, hashes and the rest from the command). */
  job(id: string, params: Record<string, unknown>, range: JobSlice, collect?: JobCollect): BacktestJob;
  /** A copy of the data file up to a time (the lookahead check's cut runs). */
  cutData?(cutMs: number): Promise<string> | string;
  /** Progress of each batch, by what it is. */
  onBatch?(label: string): ((done: number, total: number) => void) | undefined;
}

/** One candidate's run on one rung of one fold. */
export interface CandidateRun {
  candidate: string;
  rung: number;
  window: Window;
  score: Score;
  metrics: Metrics;
}

export interface ChosenRun {
  window: Window;
  score: Score;
  metrics: Metrics;
  equity: Array<[number, string]>;
  tradePnls: string[];
}

export interface FoldResult {
  index: number;
  inSample: Window;
  outOfSample: Window;
  rungs: Array<{ window: Window; candidates: string[]; kept: string[] }>;
  /** Each candidate at the last rung it reached, ranked: the last rung's first, in order of score. */
  ranking: Array<CandidateRun & { rank: number }>;
  /** The objective over the heatmap's two params, on the first rung (where every candidate ran). */
  heatmap: HeatmapGrid;
  best: { candidate: string; params: Record<string, unknown> };
  inSampleRun: ChosenRun;
  outOfSampleRun: ChosenRun;
  /** The objective per window (PnL per day; ratios as they are) in and out of sample, and their ratio. */
  inSampleValue: number;
  outOfSampleValue: number;
  efficiency: number | null;
}

export interface OptimizeResult {
  spec: OptimizeSpec;
  data: { files: string[]; fromMs: number; toMs: number };
  candidates: Candidate[];
  folds: FoldResult[];
  outOfSample: {
    /** The folds' out-of-sample equity, each fold continuing from where the previous one ended. */
    equity: Array<[number, string]>;
    strategyPnl: string;
    maxDrawdownPct: string;
    trades: number;
    meanInSample: number;
    meanOutOfSample: number;
    efficiency: number | null;
  };
  monteCarlo: MonteCarloResult | null;
  lookahead: LookaheadVerdict | null;
  /** Backtests run, in all. */
  jobs: number;
}

const windowMs = (w: Window) => w.toMs - w.fromMs;
const pad = (n: number) => String(n + 1);

/** Runs the optimisation on `runner`. */
export async function optimize(runner: JobRunner, plan: OptimizePlan): Promise<OptimizeResult> {
  const { spec } = plan;
  const cands = searchCandidates(spec.params, spec.search);
  const folds = walkForwardFolds(plan.span, spec.walkForward);
  let jobCount = 0;
  const run = async (label: string, jobs: BacktestJob[]): Promise<JobResult[]> => {
    jobCount += jobs.length;
    return runner.run(jobs, plan.onBatch?.(label));
  };
  const range = (w: Window): JobSlice => ({ ...(plan.dataFile ? { dataFile: plan.dataFile } : {}), ...jobRange(w) });

  // In sample: the rungs of every fold, batch by batch.
  const states = folds.map((fold) => ({
    fold,
    budgets: rungBudgets(spec.halving, windowMs(fold.inSample)),
    rung: 0,
    alive: cands,
    done: false,
    rungs: [] as FoldResult['rungs'],
    reached: new Map<string, CandidateRun>(),
    final: [] as CandidateRun[],
    first: new Map<string, Score>(),
  }));
  const maxRungs = Math.max(...states.map((s) => s.budgets.length));
  for (let step = 0; states.some((s) => !s.done); step++) {
    const active = states.filter((s) => !s.done);
    const jobs: BacktestJob[] = [];
    const windows = new Map<(typeof states)[number], Window>();
    for (const s of active) {
      const w = { fromMs: s.fold.inSample.fromMs, toMs: s.fold.inSample.fromMs + s.budgets[s.rung]! };
      windows.set(s, w);
      for (const c of s.alive) jobs.push(plan.job(`f${pad(s.fold.index)}-r${pad(s.rung)}-${c.id}`, c.params, range(w)));
    }
    const results = await run(`in sample, rung ${step + 1} of at most ${maxRungs}`, jobs);
    let at = 0;
    for (const s of active) {
      const w = windows.get(s)!;
      const share = windowMs(w) / windowMs(s.fold.inSample);
      const runs = s.alive.map((c): CandidateRun & { index: number } => {
        const r = results[at++]!;
        return { candidate: c.id, index: c.index, rung: s.rung, window: w, score: score(r, spec.objective, windowMs(w), share), metrics: r.metrics };
      });
      const ranked = [...runs].sort((a, b) => compareScores(spec.objective.metric, { ...a.score, index: a.index }, { ...b.score, index: b.index }));
      for (const r of ranked) s.reached.set(r.candidate, stripIndex(r));
      if (s.rungs.length === 0) for (const r of runs) s.first.set(r.candidate, r.score);
      const last = s.rung === s.budgets.length - 1;
      if (last) {
        s.rungs.push({ window: w, candidates: s.alive.map((c) => c.id), kept: [ranked[0]!.candidate] });
        s.final = ranked.map(stripIndex);
        s.done = true;
        continue;
      }
      const kept = promote(ranked, spec.halving.eta).map((r) => r.candidate);
      s.rungs.push({ window: w, candidates: s.alive.map((c) => c.id), kept });
      s.alive = cands.filter((c) => kept.includes(c.id));
      // One left: straight to the whole window.
      s.rung = s.alive.length === 1 ? s.budgets.length - 1 : s.rung + 1;
    }
  }

  // The chosen params, again on the whole in-sample window (for its equity) and out of sample, in one batch.
  const chosen = states.map((s) => cands.find((c) => c.id === s.final[0]!.candidate)!);
  const collect: JobCollect = { equity: true, trades: true };
  const finalJobs = states.flatMap((s, i) => [
    plan.job(`f${pad(s.fold.index)}-in-sample`, chosen[i]!.params, range(s.fold.inSample), collect),
    plan.job(`f${pad(s.fold.index)}-out-of-sample`, chosen[i]!.params, range(s.fold.outOfSample), collect),
  ]);
  const finals = await run('chosen params in and out of sample', finalJobs);
  const chosenRun = (r: JobResult, w: Window): ChosenRun => ({
    window: w,
    score: score(r, spec.objective, windowMs(w)),
    metrics: r.metrics,
    equity: r.equity ?? [],
    tradePnls: r.tradePnls ?? [],
  });
  const foldResults = states.map((s, i): FoldResult => {
    const inSampleRun = chosenRun(finals[2 * i]!, s.fold.inSample);
    const outOfSampleRun = chosenRun(finals[2 * i + 1]!, s.fold.outOfSample);
    const inSampleValue = perWindow(spec.objective.metric, inSampleRun.score, windowMs(s.fold.inSample));
    const outOfSampleValue = perWindow(spec.objective.metric, outOfSampleRun.score, windowMs(s.fold.outOfSample));
    return {
      index: s.fold.index,
      inSample: s.fold.inSample,
      outOfSample: s.fold.outOfSample,
      rungs: s.rungs,
      ranking: rankFold(s.reached, cands, spec),
      heatmap: heatmapGrid(spec.params, spec.heatmap, cands, s.first, spec.objective.metric),
      best: { candidate: chosen[i]!.id, params: chosen[i]!.params },
      inSampleRun,
      outOfSampleRun,
      inSampleValue,
      outOfSampleValue,
      efficiency: efficiency(inSampleValue, outOfSampleValue),
    };
  });

  const outOfSample = stitched(foldResults);
  const allTrades = foldResults.flatMap((f) => f.outOfSampleRun.tradePnls);
  const mc = spec.monteCarlo.runs > 0 ? monteCarlo(allTrades, foldResults[0]!.outOfSampleRun.metrics.startEquity, spec.monteCarlo) : null;

  let lookahead: LookaheadVerdict | null = null;
  if (spec.lookahead.enabled) {
    const params = { ...plan.baseParams, ...chosen[chosen.length - 1]!.params };
    lookahead = await checkLookahead(
      runner,
      {
        span: plan.span,
        cuts: spec.lookahead.cuts,
        marginMs: spec.lookahead.marginMs ?? plan.marginMs,
        params,
        ...(plan.dataFile ? { dataFile: plan.dataFile } : {}),
        job: (id, p, r) => plan.job(id, p, r, { decisions: true }),
        ...(plan.cutData ? { cutData: plan.cutData } : {}),
      },
      plan.onBatch?.('lookahead check'),
    );
    jobCount += spec.lookahead.cuts + 1;
  }
  return {
    spec,
    data: { files: plan.dataFiles, fromMs: plan.span.fromMs, toMs: plan.span.toMs },
    candidates: cands,
    folds: foldResults,
    outOfSample,
    monteCarlo: mc,
    lookahead,
    jobs: jobCount,
  };
}

function stripIndex<T extends { index: number }>(r: T): Omit<T, 'index'> {
  const { index: _index, ...rest } = r;
  return rest;
}

/** Each candidate at its last rung: the deeper the rung, the earlier; within a rung, by score. */
function rankFold(reached: Map<string, CandidateRun>, cands: readonly Candidate[], spec: OptimizeSpec): FoldResult['ranking'] {
  const indexOf = new Map(cands.map((c) => [c.id, c.index]));
  return [...reached.values()]
    .sort(
      (a, b) =>
        b.rung - a.rung ||
        compareScores(spec.objective.metric, { ...a.score, index: indexOf.get(a.candidate)! }, { ...b.score, index: indexOf.get(b.candidate)! }),
    )
    .map((r, i) => ({ ...r, rank: i + 1 }));
}

function stitched(folds: readonly FoldResult[]): OptimizeResult['outOfSample'] {
  const equity = stitchEquity(folds.map((f) => f.outOfSampleRun.equity));
  const strategyPnl = folds.reduce((sum, f) => sum.add(Decimal.from(f.outOfSampleRun.metrics.strategyPnl)), Decimal.ZERO);
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const meanInSample = mean(folds.map((f) => f.inSampleValue));
  const meanOutOfSample = mean(folds.map((f) => f.outOfSampleValue));
  return {
    equity,
    strategyPnl: strategyPnl.toString(),
    maxDrawdownPct: seriesDrawdownPct(equity),
    trades: folds.reduce((n, f) => n + f.outOfSampleRun.tradePnls.length, 0),
    meanInSample,
    meanOutOfSample,
    efficiency: efficiency(meanInSample, meanOutOfSample),
  };
}
