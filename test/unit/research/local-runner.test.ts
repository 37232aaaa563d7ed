// The local job runner on real worker threads (a fixture thread answering from the params): results in job order,
// no more threads than asked, refusals and broken threads told apart, a broken thread replaced.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { JobError, type BacktestJob } from '../../../src/research/jobs.js';
import { LocalRunner } from '../../../src/research/local-runner.js';

const script = new URL('../../fixtures/job-threads/echo-thread.mjs', import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'sextant-local-runner-'));
const job = (id: string, params: Record<string, unknown>): BacktestJob => ({ id, configFile: 'unused.yaml', strategy: 's', params, range: {} });

let runner: LocalRunner | undefined;
afterEach(async () => {
  await runner?.close();
  runner = undefined;
});

describe('LocalRunner', () => {
  it('gives the results in job order whatever order they finish in, on no more threads than asked', async () => {
    runner = new LocalRunner({ script, threads: 2 });
    const gate = join(dir, 'gate');
    // The first job answers only once the second has run: both ran at once, and the first finished last.
    const jobs = [job('a', { value: 1, waitFor: gate }), job('b', { value: 2, touch: gate }), ...[3, 4, 5, 6].map((v) => job(`j${v}`, { value: v }))];
    const progress: Array<[number, number]> = [];
    const results = await runner.run(jobs, (done, total) => progress.push([done, total]));
    expect(results.map((r) => [r.id, r.metrics.strategyPnl])).toEqual([
      ['a', '1'],
      ['b', '2'],
      ['j3', '3'],
      ['j4', '4'],
      ['j5', '5'],
      ['j6', '6'],
    ]);
    expect(new Set(results.map((r) => r.events)).size).toBe(2);
    expect(progress).toEqual([
      [0, 6],
      [1, 6],
      [2, 6],
      [3, 6],
      [4, 6],
      [5, 6],
      [6, 6],
    ]);
  });

  it('a refused job fails the batch with a JobError carrying its reason; a failure on the thread is a plain Error', async () => {
    runner = new LocalRunner({ script, threads: 1 });
    const refused = await runner.run([job('ok', { value: 1 }), job('bad', { refuse: 'data file x.jsonl differs' })]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(JobError);
    expect((refused as JobError).message).toBe('job bad: data file x.jsonl differs');
    const failed = await runner.runOne(job('odd', { fail: 'out of memory' })).catch((err: unknown) => err);
    expect(failed).not.toBeInstanceOf(JobError);
    expect((failed as Error).message).toBe('job odd failed on its thread: out of memory');
  });

  it('a thread that dies fails its job, and a new thread takes the next', async () => {
    runner = new LocalRunner({ script, threads: 1 });
    const first = await runner.runOne(job('one', { value: 1 }));
    const died = await runner.runOne(job('boom', { crash: true })).catch((err: unknown) => err);
    expect((died as Error).message).toMatch(/^the thread running job boom failed: thread broke/);
    const next = await runner.runOne(job('two', { value: 2 }));
    expect(next.metrics.strategyPnl).toBe('2');
    expect(next.events).not.toBe(first.events);
  });

  it('a closed runner refuses new jobs', async () => {
    runner = new LocalRunner({ script, threads: 1 });
    await runner.close();
    await expect(runner.runOne(job('late', { value: 1 }))).rejects.toThrow('the local job runner is closed');
  });
});
