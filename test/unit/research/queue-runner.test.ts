// The Redis job queue (real Redis at 127.0.0.1:6379, keys under a prefix of this file's own, removed after): a batch
// run by queue workers in this process comes back in job order, each job counted once; a job that failed is retried
// and counted once; a refused job fails the batch, naming why, and is not retried; a job whose worker stopped
// without finishing it is taken back once its lock lapses and run by another.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { JobError, type BacktestJob, type JobResult, type RunJob } from '../../../src/research/jobs.js';
import { QueueRunner } from '../../../src/research/queue-runner.js';
import { QueueWorker } from '../../../src/research/queue-worker.js';
import type { Metrics } from '../../../src/report/metrics.js';
import { silentLogger } from '../../../src/util/logger.js';

const REDIS = 'redis://127.0.0.1:6379';
const prefix = `sextant-test-${randomUUID().slice(0, 8)}`;
const job = (id: string, value: number): BacktestJob => ({ id, configFile: '/unused.yaml', strategy: 's', params: { value }, range: {} });
const resultOf = (j: BacktestJob): JobResult => ({ id: j.id, metrics: { strategyPnl: String(j.params.value) } as unknown as Metrics, events: 0 });

const open: Array<{ close(): Promise<void> }> = [];
const worker = async (run: RunJob, opts: { queue: string; lockDurationMs?: number; stalledIntervalMs?: number }) => {
  const w = await QueueWorker.start(run, { redis: REDIS, prefix, concurrency: 2, ...opts }, silentLogger);
  open.push(w);
  return w;
};
const runner = (queue: string) => {
  const r = new QueueRunner({ redis: REDIS, prefix, queue, backoffMs: 10, pollMs: 200 });
  open.push(r);
  return r;
};
const queueName = () => `q-${randomUUID().slice(0, 8)}`;

afterEach(async () => {
  await Promise.all(open.splice(0).map((x) => x.close()));
});

afterAll(async () => {
  const redis = new Redis(REDIS);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('QueueRunner with queue workers', () => {
  it('runs a batch on two workers: results in job order, progress counted to the end, the jobs removed after', async () => {
    const queue = queueName();
    const ran: string[] = [];
    const run: RunJob = async (j) => {
      ran.push(j.id);
      return resultOf(j);
    };
    await worker(run, { queue });
    await worker(run, { queue });
    const jobs = Array.from({ length: 12 }, (_, i) => job(`j${i}`, i));
    const progress: number[] = [];
    const r = runner(queue);
    const results = await r.run(jobs, (done) => progress.push(done));
    expect(results.map((x) => [x.id, x.metrics.strategyPnl])).toEqual(jobs.map((j) => [j.id, String(j.params.value)]));
    expect([...ran].sort()).toEqual(jobs.map((j) => j.id).sort());
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(12);
    expect(r.retried).toEqual([]);
    const redis = new Redis(REDIS);
    const left = await redis.keys(`${prefix}:${queue}:*-*-*-*-*-*`);
    await redis.quit();
    expect(left).toEqual([]);
  });

  it('a job that fails is retried after its backoff and counted once', async () => {
    const queue = queueName();
    let failures = 0;
    await worker(
      async (j) => {
        if (j.id === 'flaky' && failures++ === 0) throw new Error('lost the data mount');
        return resultOf(j);
      },
      { queue },
    );
    const r = runner(queue);
    const results = await r.run([job('steady', 1), job('flaky', 2)]);
    expect(results.map((x) => x.id)).toEqual(['steady', 'flaky']);
    expect(failures).toBe(2);
    expect(r.retried).toEqual(['flaky']);
  });

  it('a refused job fails the batch with its reason and is not retried', async () => {
    const queue = queueName();
    let tries = 0;
    await worker(
      async (j) => {
        if (j.id !== 'bad') return resultOf(j);
        tries++;
        throw new JobError(j.id, "data file data/x.jsonl differs from the submitter's copy");
      },
      { queue },
    );
    const err = await runner(queue)
      .run([job('good', 1), job('bad', 2)])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobError);
    expect((err as Error).message).toBe("job bad: data file data/x.jsonl differs from the submitter's copy");
    expect(tries).toBe(1);
  });

  it('a job whose worker stopped without finishing it is taken back when its lock lapses, and run once more elsewhere', async () => {
    const queue = queueName();
    let held!: () => void;
    const taken = new Promise<void>((resolve) => (held = resolve));
    // The first worker takes the job and never answers; it is then stopped without waiting for it.
    const stuck = await worker(
      () => {
        held();
        return new Promise<JobResult>(() => {});
      },
      { queue, lockDurationMs: 1000, stalledIntervalMs: 300 },
    );
    const r = runner(queue);
    const results = r.run([job('only', 7)]);
    await taken;
    await stuck.close({ abandon: true });
    const runs: string[] = [];
    await worker(
      async (j) => {
        runs.push(j.id);
        return resultOf(j);
      },
      { queue, lockDurationMs: 1000, stalledIntervalMs: 300 },
    );
    expect((await results).map((x) => x.metrics.strategyPnl)).toEqual(['7']);
    expect(runs).toEqual(['only']);
    expect(r.retried).toEqual(['only']);
  });
});
