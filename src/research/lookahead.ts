// The lookahead check: the chosen params run on the whole data and on the data cut at a few times T. A strategy
// that only knows the past decides the same up to T in both; one that peeks ahead (at data past T) decides
// otherwise somewhere before T. Decisions within a margin of T (a poll period: what was in flight at the cut) are
// not compared. The cut runs replay a copy of the data that ends at T, so a strategy reading the data file for
// itself (a param naming it) reads the copy: nothing after T exists for those runs.
import { resolve } from 'node:path';
import type { BacktestJob, Decision, JobResult, JobRunner } from './jobs.js';

/** What a research job replays: the data file (none: the config's) and the range, both ends included. */
export interface JobSlice {
  dataFile?: string;
  fromMs: number;
  toMs: number;
}
import type { Window } from './walk-forward.js';

export interface LookaheadCut {
  cutMs: number;
  /** Decisions up to this time (included) were compared: cutMs less the margin. */
  untilMs: number;
  compared: number;
  /** The first decision that is not the same in both runs (either may be missing). */
  difference?: { index: number; full?: Decision; cut?: Decision };
  fault?: string;
}

export interface LookaheadVerdict {
  params: Record<string, unknown>;
  marginMs: number;
  /** Decisions of the run on the whole data. */
  decisions: number;
  cuts: LookaheadCut[];
  /** Some cut run decided otherwise before its cut. */
  peeks: boolean;
  /** The cut runs replayed copies of the data ending at their cut (else the data, replayed up to the cut). */
  copies: boolean;
}

/** `count` cut times spread evenly inside the span (never at its ends), on whole seconds where the span allows. */
export function cutPoints(span: Window, count: number): number[] {
  const length = span.toMs - span.fromMs;
  return Array.from({ length: count }, (_, i) => {
    const at = span.fromMs + Math.floor(((i + 1) * length) / (count + 1));
    const second = Math.floor(at / 1000) * 1000;
    return second > span.fromMs ? second : at;
  });
}

const same = (a: Decision, b: Decision) => a.ts === b.ts && a.strategy === b.strategy && a.intent === b.intent;

/** Compares the decisions made up to `untilMs` (included) of two runs, in order; the first that differs, if any. */
export function firstDifference(
  full: readonly Decision[],
  cut: readonly Decision[],
  untilMs: number,
): { compared: number; difference?: LookaheadCut['difference'] } {
  const a = full.filter((d) => d.ts <= untilMs);
  const b = cut.filter((d) => d.ts <= untilMs);
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (!x || !y || !same(x, y)) return { compared: i, difference: { index: i, ...(x ? { full: x } : {}), ...(y ? { cut: y } : {}) } };
  }
  return { compared: n };
}

/** Params of a cut run: those naming the replayed data file name the cut copy instead. */
export function paramsForCut(params: Record<string, unknown>, dataFile: string, cutFile: string): Record<string, unknown> {
  const data = resolve(dataFile);
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' && resolve(v) === data ? cutFile : v]));
}

export interface LookaheadPlan {
  /** The data's span (first event included, last excluded). */
  span: Window;
  cuts: number;
  marginMs: number;
  /** The params checked (the instance's own with the chosen ones over them). */
  params: Record<string, unknown>;
  /** The replayed file; none: the config's data (several files replayed as one). */
  dataFile?: string;
  /** A job for the params and a range (the rest of the job: config, hashes). */
  job(id: string, params: Record<string, unknown>, range: JobSlice): BacktestJob;
  /** A copy of the data file up to `cutMs` (included); its path. None: the data replayed up to the cut. */
  cutData?(cutMs: number): Promise<string> | string;
}

/** Runs the check on `runner`: the whole data and each cut, in one batch. */
export async function checkLookahead(runner: JobRunner, plan: LookaheadPlan, onProgress?: (done: number, total: number) => void): Promise<LookaheadVerdict> {
  const times = cutPoints(plan.span, plan.cuts);
  const last = plan.span.toMs - 1;
  const data = plan.dataFile;
  const jobs: BacktestJob[] = [plan.job('lookahead-full', plan.params, { ...(data ? { dataFile: data } : {}), fromMs: plan.span.fromMs, toMs: last })];
  for (const [i, cutMs] of times.entries()) {
    const copy = data && plan.cutData ? await plan.cutData(cutMs) : undefined;
    const params = data && copy ? paramsForCut(plan.params, data, copy) : plan.params;
    jobs.push(plan.job(`lookahead-cut-${i + 1}`, params, { ...((copy ?? data) ? { dataFile: copy ?? data } : {}), fromMs: plan.span.fromMs, toMs: cutMs }));
  }
  const results = await runner.run(jobs, onProgress);
  return lookaheadVerdict({ ...plan, copies: !!(data && plan.cutData) }, times, results[0]!, results.slice(1));
}

/** The verdict from the whole run and the cut runs (in the order of `times`). */
export function lookaheadVerdict(
  plan: Pick<LookaheadPlan, 'params' | 'marginMs'> & { copies: boolean },
  times: readonly number[],
  full: JobResult,
  cutRuns: readonly JobResult[],
): LookaheadVerdict {
  const decisions = full.decisions ?? [];
  const cuts = times.map((cutMs, i): LookaheadCut => {
    const run = cutRuns[i]!;
    const untilMs = cutMs - plan.marginMs;
    const { compared, difference } = firstDifference(decisions, run.decisions ?? [], untilMs);
    return { cutMs, untilMs, compared, ...(difference ? { difference } : {}), ...(run.fault ? { fault: run.fault } : {}) };
  });
  return {
    params: plan.params,
    marginMs: plan.marginMs,
    decisions: decisions.length,
    cuts,
    peeks: cuts.some((c) => c.difference !== undefined),
    copies: plan.copies,
  };
}
