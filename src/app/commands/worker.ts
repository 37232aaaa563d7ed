// `sextant worker --redis <url>`: takes backtest jobs from a Redis queue (sweeps and optimisations submitted with
// `--queue`), runs them on worker threads, stores their results; until SIGTERM or SIGINT, when the jobs running are
// finished first. Jobs name their files by path: a worker runs in the same file tree as the submitter, or refuses.
import { availableParallelism } from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_QUEUE } from '../../research/queue.js';
import { QueueWorker } from '../../research/queue-worker.js';
import { createLogger, registerUrlCredentials } from '../../util/logger.js';
import { localJobRunner } from '../job-run.js';
import { waitForStop } from '../signals.js';
import type { Io, SetCode } from './io.js';

interface WorkerOptions {
  redis: string;
  queue: string;
  concurrency?: number;
  lockMs?: number;
  stalledMs?: number;
}

/** A commander parser of a whole number above 0. */
export function positiveWhole(name: string): (value: string) => number {
  return (value) => {
    if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`--${name} expects a whole number above 0, got ${JSON.stringify(value)}`);
    return Number(value);
  };
}

async function worker(opts: WorkerOptions, io: Io): Promise<number> {
  registerUrlCredentials(opts.redis);
  const logger = createLogger({ level: 'info', fd: 2, base: { app: 'sextant', cmd: 'worker' } });
  const concurrency = opts.concurrency ?? availableParallelism();
  const threads = localJobRunner(concurrency);
  let queueWorker: QueueWorker;
  try {
    queueWorker = await QueueWorker.start(
      (job) => threads.runOne(job),
      {
        redis: opts.redis,
        queue: opts.queue,
        concurrency,
        ...(opts.lockMs !== undefined ? { lockDurationMs: opts.lockMs } : {}),
        ...(opts.stalledMs !== undefined ? { stalledIntervalMs: opts.stalledMs } : {}),
      },
      logger.child({ cwd: process.cwd() }),
    );
  } catch (err) {
    await threads.close();
    io.err(`worker: ${(err as Error).message}`);
    return 1;
  }
  const signal = await waitForStop();
  logger.info({ signal }, 'stopping: finishing the jobs running');
  await queueWorker.close();
  await threads.close();
  logger.info('stopped');
  return 0;
}

export function registerWorker(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('worker')
    .description(
      'take backtest jobs (sweeps, optimisations submitted with --queue) from a Redis queue and run them, until SIGTERM/SIGINT; run it in the same file tree as the submitter',
    )
    .requiredOption('--redis <url>', 'Redis server, redis://[user:password@]host:port[/db]')
    .option('--queue <name>', 'queue to take jobs from', DEFAULT_QUEUE)
    .option('--concurrency <n>', 'jobs run at once, each on its own thread (default: the cores)', positiveWhole('concurrency'))
    .option(
      '--lock-ms <ms>',
      "a job's lock, renewed while it runs: a job whose worker died is taken back once it expires (default 30000)",
      positiveWhole('lock-ms'),
    )
    .option('--stalled-ms <ms>', 'how often to look for jobs whose lock expired (default 15000)', positiveWhole('stalled-ms'))
    .action(async (opts: WorkerOptions) => setCode(await worker(opts, io)));
}
