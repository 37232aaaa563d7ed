// Jobs run by `sextant worker` processes, here or on other machines, through a Redis queue (BullMQ). A batch's jobs
// carry its id; their results come back in job order, each counted once however often it ran: a job whose worker
// died is taken back when its lock expires and run again by another, a job that failed is retried after a
// backoff, and a job refused (a JobError: its files differ on the worker, its config is wrong) fails the batch.
import { randomUUID } from 'node:crypto';
import { Queue, QueueEvents, type Job } from 'bullmq';
import { systemClock, type Clock, type ClockTimer } from '../util/clock.js';
import { JobError, type BacktestJob, type JobResult, type JobRunner } from './jobs.js';
import { checkRedis, connectionOf, JOB_NAME, queueNames, type QueueAddress, type QueuedJob } from './queue.js';

export interface QueueRunnerOptions extends QueueAddress {
  /** Runs of a job that failed (not refused) before the batch fails; default 3. */
  attempts?: number;
  /** Wait before the first retry, doubled for each further one; default 1000 ms. */
  backoffMs?: number;
  /** Every unfinished job's state is also read this often, besides the queue's events; default 2000 ms. */
  pollMs?: number;
  /** How long Redis has to answer at the start; default 10000 ms. */
  connectTimeoutMs?: number;
  clock?: Clock;
}

/** Finished jobs are removed by the runner; these limits clear what a runner that died left behind. */
const KEEP_FINISHED = { age: 24 * 3600 };

export class QueueRunner implements JobRunner {
  /** Jobs of the last batch that started more than once (a worker stopped or failed on them), by job id. */
  retried: string[] = [];
  private readonly names: { queue: string; prefix: string };
  private readonly clock: Clock;
  private queue?: Queue<QueuedJob, JobResult>;
  private events?: QueueEvents;

  constructor(private readonly opts: QueueRunnerOptions) {
    this.names = queueNames(opts);
    this.clock = opts.clock ?? systemClock;
  }

  get queueName(): string {
    return this.names.queue;
  }

  async run(jobs: readonly BacktestJob[], onProgress?: (done: number, total: number) => void): Promise<JobResult[]> {
    const { queue, events } = await this.connect();
    const batch = randomUUID();
    // BullMQ's ids: the batch and the job's place in it (a job's own id may hold characters BullMQ refuses).
    const bullIds = jobs.map((_, index) => `${batch}-${index}`);
    const indexOf = new Map(bullIds.map((id, index) => [id, index]));
    const results: Array<JobResult | undefined> = new Array<JobResult | undefined>(jobs.length);
    const retried = new Set<string>();
    let done = 0;
    let timer: ClockTimer | undefined;
    let settle: { resolve(): void; reject(err: Error): void } | undefined;
    const finished = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    // A job's state, read when an event says it moved and on every poll: whichever sees it first counts it.
    const look = async (bullId: string): Promise<void> => {
      const index = indexOf.get(bullId);
      if (index === undefined || results[index]) return;
      // The state first, then the job: once completed or failed, a job stays so (read the other way round, a job
      // read while running and found completed after would have no result).
      const state = await queue.getJobState(bullId);
      if (state !== 'completed' && state !== 'failed') return;
      const job: Job<QueuedJob, JobResult> | undefined = await queue.getJob(bullId);
      if (!job || results[index]) return;
      if (state === 'completed') {
        if (!job.returnvalue) throw new Error(`job ${jobs[index]!.id}: completed on the queue with no result`);
        results[index] = job.returnvalue;
        if (job.attemptsStarted > 1) retried.add(jobs[index]!.id);
        done += 1;
        onProgress?.(done, jobs.length);
        if (done === jobs.length) settle!.resolve();
      } else if (state === 'failed') {
        settle!.reject(new JobError(jobs[index]!.id, job.failedReason || 'failed on the worker'));
      }
    };
    const lookSafely = (bullId: string) => void look(bullId).catch((err: Error) => settle!.reject(err));
    const onCompleted = ({ jobId }: { jobId: string }) => lookSafely(jobId);
    const onFailed = ({ jobId }: { jobId: string }) => lookSafely(jobId);
    events.on('completed', onCompleted);
    events.on('failed', onFailed);
    const poll = () => {
      timer = this.clock.setTimer(() => {
        Promise.all(bullIds.filter((_, index) => !results[index]).map(look)).then(poll, (err: Error) => settle!.reject(err));
      }, this.opts.pollMs ?? 2000);
    };
    try {
      onProgress?.(0, jobs.length);
      const backoff = { type: 'exponential', delay: this.opts.backoffMs ?? 1000 };
      await queue.addBulk(
        jobs.map((job, index) => ({
          name: JOB_NAME,
          data: { batch, job },
          opts: { jobId: bullIds[index]!, attempts: this.opts.attempts ?? 3, backoff, removeOnComplete: KEEP_FINISHED, removeOnFail: KEEP_FINISHED },
        })),
      );
      poll();
      if (jobs.length > 0) await finished;
      this.retried = jobs.filter((job) => retried.has(job.id)).map((job) => job.id);
      return results as JobResult[];
    } finally {
      timer?.cancel();
      events.off('completed', onCompleted);
      events.off('failed', onFailed);
      // The batch's jobs go: results read, or the batch failed (those still waiting are not run; one a worker holds
      // cannot be removed and ends on its own).
      await Promise.all(bullIds.map((id) => queue.remove(id).catch(() => 0)));
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.events?.close(), this.queue?.close()]);
    this.events = undefined;
    this.queue = undefined;
  }

  private async connect(): Promise<{ queue: Queue<QueuedJob, JobResult>; events: QueueEvents }> {
    if (this.queue && this.events) return { queue: this.queue, events: this.events };
    await checkRedis(this.opts, this.opts.connectTimeoutMs ?? 10_000);
    const options = { connection: connectionOf(this.opts), prefix: this.names.prefix };
    const queue = new Queue<QueuedJob, JobResult>(this.names.queue, options);
    const events = new QueueEvents(this.names.queue, options);
    this.queue = queue;
    this.events = events;
    // Connection trouble is retried by the client; what it says is not an end (a lost answer is found by the poll).
    queue.on('error', () => {});
    events.on('error', () => {});
    // The events are listened to before any job is added: none of the batch's can pass unseen.
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    return { queue, events };
  }
}
