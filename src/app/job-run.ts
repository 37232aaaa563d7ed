// One research job run where it is: the config as the command checks it (no environment: a run depends on its files
// alone), the files compared with the submitter's copies, one instance's params replaced, a backtest of the job's
// range. Whatever runs jobs (worker threads, `sextant worker`) calls this and nothing else.
import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { Config } from '../config/schema.js';
import { formatIssue } from '../config/load.js';
import { JobError, type BacktestJob, type JobRange, type JobResult, type RunJob } from '../research/jobs.js';
import { LocalRunner } from '../research/local-runner.js';
import { findStrategyFile } from '../strategy/loader.js';
import { sha256File } from '../util/file-hash.js';
import { silentLogger } from '../util/logger.js';
import { BacktestFaultError, runBacktest, type BacktestResult } from './backtest.js';
import { loadCheckedConfig } from './config-check.js';
import { simulatorInstruments } from './instrument-list.js';

/** Hashes already read by this process, by path, while the file's size and modification time stay the same. */
const hashes = new Map<string, { stamp: string; hash: string }>();

/** The file's sha256, or undefined when it is not there (a path that exists but cannot be read throws). */
async function hashOf(file: string): Promise<string | undefined> {
  let stamp: string;
  try {
    const st = await stat(file);
    stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const known = hashes.get(file);
  if (known?.stamp === stamp) return known.hash;
  const hash = await sha256File(file);
  hashes.set(file, { stamp, hash });
  return hash;
}

/** Refuses the job when a file it names is missing here or differs from the submitter's copy. */
async function checkFiles(job: BacktestJob): Promise<void> {
  const wanted: Array<[what: string, file: string, hash: string]> = [
    ...(job.configHash ? [['config file', job.configFile, job.configHash] as [string, string, string]] : []),
    ...Object.entries(job.dataHashes ?? {}).map(([file, hash]): [string, string, string] => ['data file', file, hash]),
    ...Object.entries(job.strategyHashes ?? {}).map(([file, hash]): [string, string, string] => ['strategy file', file, hash]),
  ];
  for (const [what, file, hash] of wanted) {
    const here = await hashOf(file);
    if (here === undefined)
      throw new JobError(job.id, `${what} ${file} is missing here (working directory ${process.cwd()}): a worker runs in the same file tree as the submitter`);
    if (here !== hash)
      throw new JobError(job.id, `${what} ${file} differs from the submitter's copy (sha256 ${here.slice(0, 12)}… here, ${hash.slice(0, 12)}… submitted)`);
  }
}

/** The fault as the result names it: which strategy, when, why (where the files went is the run's own business). */
const faultOf = (r: BacktestResult): string => r.faults.map((f) => `strategy ${f.strategy} faulted at ${f.at}: ${f.reason}`).join('; ');

function resultOf(id: string, r: BacktestResult): JobResult {
  const collected = r.collected ?? {};
  return {
    id,
    metrics: r.metrics,
    events: r.events,
    ...(collected.tradePnls ? { tradePnls: collected.tradePnls } : {}),
    ...(collected.equity ? { equity: collected.equity } : {}),
    ...(collected.decisions ? { decisions: collected.decisions } : {}),
  };
}

export const runJob: RunJob = async (job) => {
  await checkFiles(job);
  const checked = await loadCheckedConfig(job.configFile, { env: {}, instrumentsFor: (raw) => simulatorInstruments(raw.config) });
  if (!checked.ok) throw new JobError(job.id, checked.issues.map(formatIssue).join('; '));
  const { loaded } = checked.check;
  const instance = loaded.config.strategies.find((s) => s.id === job.strategy);
  if (!instance) throw new JobError(job.id, `no strategy instance ${job.strategy} in ${job.configFile}`);
  instance.params = { ...instance.params, ...job.params };
  try {
    const result = await runBacktest(loaded, silentLogger, {
      ...job.range,
      ...(job.outDir ? { outDir: job.outDir } : {}),
      writeFiles: job.outDir !== undefined,
      ...(job.collect ? { collect: job.collect } : {}),
    });
    return resultOf(job.id, result);
  } catch (err) {
    // A run whose strategy faulted is a result (ranked last, its fault named), not a job that could not run.
    if (err instanceof BacktestFaultError) return { ...resultOf(job.id, err.result), fault: faultOf(err.result) };
    if (err instanceof JobError) throw err;
    throw new JobError(job.id, (err as Error).message);
  }
};

/** A runner of jobs on this process's worker threads (all cores unless told), each thread calling runJob. */
export function localJobRunner(threads?: number): LocalRunner {
  return new LocalRunner({ script: new URL('./job-thread.js', import.meta.url), ...(threads !== undefined ? { threads } : {}) });
}

/**
 * The module file of a strategy instance (relative to the working directory, as data files are named): what a job
 * checks against the submitter's copy. None when the instance or its file is not found (the run itself says so).
 */
export function jobStrategyFiles(config: Config, strategyId: string): string[] {
  const instance = config.strategies.find((s) => s.id === strategyId);
  const file = instance ? findStrategyFile(instance.name, config.strategyDirs) : undefined;
  return file ? [relative(process.cwd(), file)] : [];
}

/** The data files a backtest of `range` reads: the replayed files and the recorded funding rates. */
export function jobDataFiles(config: Config, range: JobRange): string[] {
  return [...[range.dataFile ?? config.backtest.data].flat(), ...config.backtest.funding];
}
