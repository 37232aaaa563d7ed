// Backtest jobs: what a sweep or an optimisation asks to have run, and what comes back. Where a job runs (worker
// threads here, `sextant worker` processes on a Redis queue) is the runner's business; what it gives back is not:
// the same job gives the same result wherever it runs.
import type { Metrics } from '../report/metrics.js';

/** The slice of data a job replays: the config's file unless named, all of it unless bounded. */
export interface JobRange {
  dataFile?: string;
  fromMs?: number;
  toMs?: number;
}

/** What a job collects besides its metrics (each costs memory and bytes on the queue: asked for when needed). */
export interface JobCollect {
  /** Closed round trips' PnL in time order (Monte Carlo resampling). */
  trades?: boolean;
  /** The equity samples (walk-forward stitching). */
  equity?: boolean;
  /** Every intent the strategies made, with its virtual time (the lookahead check). */
  decisions?: boolean;
}

export interface BacktestJob {
  /** Unique within its batch; results come back under it, so a job run twice is counted once. */
  id: string;
  /** The config file, by path as every worker sees it (a worker elsewhere needs the same tree: config, strategies, data). */
  configFile: string;
  /** sha256 of the config file's content when submitted: a worker whose copy differs refuses the job. */
  configHash?: string;
  /** The strategy instance whose params are replaced, and the replacements. */
  strategy: string;
  params: Record<string, unknown>;
  range: JobRange;
  /** sha256 of each data file the job reads, by path: a worker whose copy differs or is missing refuses the job. */
  dataHashes?: Record<string, string>;
  /**
   * sha256 of the strategy's module file, by path (the file the instance's name resolves to in the config's strategy
   * folders): a worker whose copy differs or is missing refuses the job. Modules it imports are not included.
   */
  strategyHashes?: Record<string, string>;
  /** Where the run's files go; none: only the result is wanted. */
  outDir?: string;
  collect?: JobCollect;
}

/** One decision of the lookahead check: when, whose, and the intent as JSON (exact strings, stable key order). */
export interface Decision {
  ts: number;
  strategy: string;
  intent: string;
}

export interface JobResult {
  id: string;
  metrics: Metrics;
  /** The strategy faulted: ranked after every run that did not, its fault named. */
  fault?: string;
  events: number;
  tradePnls?: string[];
  /** [ms, equity] samples. */
  equity?: Array<[number, string]>;
  decisions?: Decision[];
}

/** Runs one job where it is (the composition in app/ provides it: research never runs a backtest itself). */
export type RunJob = (job: BacktestJob) => Promise<JobResult>;

/** Runs a batch of jobs somewhere; results in job order, each job's result counted once. */
export interface JobRunner {
  run(jobs: readonly BacktestJob[], onProgress?: (done: number, total: number) => void): Promise<JobResult[]>;
  close(): Promise<void>;
}

/** A job that could not be run at all (bad config, missing data, a worker's copy differs): not a result. */
export class JobError extends Error {
  constructor(
    readonly jobId: string,
    /** Why, without the job's id. */
    readonly reason: string,
  ) {
    super(`job ${jobId}: ${reason}`);
    this.name = 'JobError';
  }
}
