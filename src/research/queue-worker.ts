// The taking end of the Redis job queue (BullMQ): jobs are taken as they come, `concurrency` at a time, run by the
// given RunJob, their results stored for the submitter. While a job runs its lock is renewed; a worker that dies
// stops renewing it, and once it expires another worker's stalled check puts the job back to be run again. A job
// refused (a JobError) is not retried: it would be refused again.
import { hostname } from 'node:os';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { stopwatch } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { JobError, type JobResult, type RunJob } from './jobs.js';
import { checkRedis, connectionOf, queueNames, type QueueAddress, type QueuedJob } from './queue.js';

export interface QueueWorkerOptions extends QueueAddress {
  /** Jobs run at once; default 1. */
  concurrency?: number;
  /** A job's lock lasts this long and is renewed at half of it; a job whose lock expired is taken back. Default 30000 ms. */
  lockDurationMs?: number;
  /** How often this worker looks for jobs whose lock expired; default 15000 ms. */
  stalledIntervalMs?: number;
  /** Times a job may be taken back before it fails; default 2. */
  maxStalledCount?: number;
  /** How long Redis has to answer at the start; default 10000 ms. */
  connectTimeoutMs?: number;
}

export class QueueWorker {
  private constructor(private readonly worker: Worker<QueuedJob, JobResult>) {}

  /** Starts taking jobs once Redis answers. */
  static async start(run: RunJob, opts: QueueWorkerOptions, logger: Logger): Promise<QueueWorker> {
    const { queue, prefix } = queueNames(opts);
    await checkRedis(opts, opts.connectTimeoutMs ?? 10_000);
    const name = `${hostname()}:${process.pid}`;
    const take = async (job: Job<QueuedJob, JobResult>): Promise<JobResult> => {
      const { batch, job: backtest } = job.data;
      const log = logger.child({ job: backtest.id, batch, attempt: job.attemptsStarted });
      log.info('job started');
      const elapsed = stopwatch();
      try {
        const result = await run(backtest);
        log.info({ ms: Math.round(elapsed()) }, 'job done');
        return result;
      } catch (err) {
        if (err instanceof JobError) {
          log.warn({ reason: err.reason }, 'job refused');
          throw new UnrecoverableError(err.reason);
        }
        log.warn({ err: (err as Error).message }, 'job failed');
        throw err;
      }
    };
    const worker = new Worker<QueuedJob, JobResult>(queue, take, {
      connection: connectionOf(opts),
      prefix,
      name,
      concurrency: opts.concurrency ?? 1,
      autorun: false,
      lockDuration: opts.lockDurationMs ?? 30_000,
      stalledInterval: opts.stalledIntervalMs ?? 15_000,
      maxStalledCount: opts.maxStalledCount ?? 2,
    });
    worker.on('error', (err) => logger.warn({ err: err.message }, 'queue error'));
    await worker.waitUntilReady();
    void worker.run().catch((err: Error) => logger.error({ err: err.message }, 'the worker stopped'));
    logger.info({ queue, prefix, concurrency: opts.concurrency ?? 1, name }, 'worker ready');
    return new QueueWorker(worker);
  }

  /**
   * Takes no more jobs; resolves once those running are done and their results stored. `abandon`: at once, the jobs
   * running left to lapse: their locks are no longer renewed, and other workers take them once they expire.
   */
  async close(opts: { abandon?: boolean } = {}): Promise<void> {
    await this.worker.close(opts.abandon === true);
  }
}
