// A sweep of 48 runs on worker threads and on `sextant worker` processes taking them from Redis (127.0.0.1:6379):
// the same sweep.csv and run files byte for byte whichever ran them; a worker killed mid-run leaves its job to the
// other, every run counted once; a worker whose data file differs from the submitter's refuses, and the sweep fails
// naming the file. The queues are this file's own; their keys are removed after.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';

const REDIS = 'redis://127.0.0.1:6379';
const BIN = resolve('bin/sextant.js');
const dir = mkdtempSync(join(tmpdir(), 'sextant-queue-sweep-'));
const tag = randomUUID().slice(0, 8);
const queues: string[] = [];
const children: ChildProcess[] = [];

// One fast strategy on the sample's first two minutes, 48 combinations of its params. The data is backtest.data's
// default, data/sample/ticks.jsonl in the working directory: a worker elsewhere reads its own tree's copy.
const config = join(dir, 'sweep.yaml');
writeFileSync(
  config,
  `mode: backtest
backtest: { latencyMs: 50 }
sim:
  accounts: { spot: { USDT: "100000", BTC: "1" } }
strategies:
  - id: mm-btc
    name: spot-market-maker
    symbols: [BTCUSDT_SPBL]
    params: { halfSpreadBps: 2, size: "0.002", maxInventory: "0.02", skewBps: 5, toleranceBps: 1 }
log: { level: warn }
`,
);
const spec = join(dir, 'spec.yaml');
writeFileSync(
  spec,
  'strategy: mm-btc\nparams:\n  halfSpreadBps: [2, 3, 4, 5, 6, 8]\n  skewBps: [3, 5]\n  toleranceBps: [1, 2]\n  maxInventory: ["0.02", "0.01"]\n',
);
const RANGE = ['--to', '2026-01-05T00:02:00Z'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sweep(out: string, queue?: string): Promise<Run> {
  const args = [
    'backtest',
    '--config',
    config,
    '--sweep',
    spec,
    '--out',
    join(dir, out),
    ...RANGE,
    ...(queue ? ['--queue', REDIS, '--queue-name', queue] : []),
  ];
  return new Promise((done) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    p.stderr.on('data', (d) => (stderr += String(d)));
    p.on('close', (code) => done({ code, stdout, stderr }));
  });
}

interface WorkerProcess {
  child: ChildProcess;
  /** Its log lines so far (JSON). */
  lines: Array<{ msg: string; job?: string }>;
  /** Resolves with the first log line, from now or before, that `match` accepts. */
  waitFor(match: (line: { msg: string; job?: string }) => boolean): Promise<void>;
  exited: Promise<number | null>;
}

function newQueue(name: string): string {
  const queue = `e2e-${tag}-${name}`;
  queues.push(queue);
  return queue;
}

async function startWorker(queue: string, args: string[] = [], cwd = process.cwd()): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker', '--redis', REDIS, '--queue', queue, ...args], { cwd, env: { PATH: process.env.PATH } });
  children.push(child);
  const lines: WorkerProcess['lines'] = [];
  const waiting: Array<{ match: (line: { msg: string; job?: string }) => boolean; resolve(): void }> = [];
  let buffer = '';
  child.stderr!.on('data', (d) => {
    buffer += String(d);
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const part of parts) {
      if (!part.startsWith('{')) continue;
      const line = JSON.parse(part) as { msg: string; job?: string };
      lines.push(line);
      for (const w of waiting.filter((x) => x.match(line))) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const worker: WorkerProcess = {
    child,
    lines,
    exited,
    waitFor: (match) =>
      lines.some(match)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiting.push({ match, resolve })),
            exited.then((code) => Promise.reject(new Error(`the worker ended (${code}) before the line awaited: ${JSON.stringify(lines)}`))),
          ]),
  };
  await worker.waitFor((line) => line.msg === 'worker ready');
  return worker;
}

async function stop(worker: WorkerProcess): Promise<number | null> {
  worker.child.kill('SIGTERM');
  return worker.exited;
}

const csvOf = (out: string) => readFileSync(join(dir, out, 'sweep.csv'), 'utf8');
const reportOf = (out: string, run: string) => readFileSync(join(dir, out, run, 'report.json'), 'utf8');
const RUNS = Array.from({ length: 48 }, (_, i) => `run-${String(i + 1).padStart(3, '0')}`);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  const redis = new Redis(REDIS);
  for (const queue of queues) {
    const keys = await redis.keys(`sextant:${queue}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

describe('a sweep on worker threads and on `sextant worker` processes', () => {
  let local: string;

  it('local threads, one worker, two workers: the same sweep.csv and run files, byte for byte', async () => {
    const one = newQueue('one');
    const two = newQueue('two');
    // The workers start (and wait, idle) while the local sweep runs.
    const [here, single, ...pair] = await Promise.all([
      sweep('local'),
      startWorker(one),
      startWorker(two, ['--concurrency', '1']),
      startWorker(two, ['--concurrency', '1']),
    ]);
    expect(here.code).toBe(0);
    local = csvOf('local');
    expect(local.trim().split('\n')).toHaveLength(49);

    const viaOne = await sweep('one', one);
    expect(viaOne.code).toBe(0);
    expect(viaOne.stderr).toContain(`sweep: the runs go to queue ${one} at ${REDIS}`);
    expect(await stop(single)).toBe(0);

    const viaTwo = await sweep('two', two);
    expect(viaTwo.code).toBe(0);
    expect(await Promise.all(pair.map(stop))).toEqual([0, 0]);
    // Both took runs, and between them every run once.
    const done = pair.map((w) => w.lines.filter((l) => l.msg === 'job done').map((l) => l.job!));
    expect(done.map((jobs) => jobs.length > 0)).toEqual([true, true]);
    expect(done.flat().sort()).toEqual(RUNS);

    expect({ one: csvOf('one') === local, two: csvOf('two') === local }).toEqual({ one: true, two: true });
    for (const run of RUNS)
      expect({ run, same: reportOf('one', run) === reportOf('local', run) && reportOf('two', run) === reportOf('local', run) }).toEqual({ run, same: true });
    expect(viaOne.stdout).toBe(here.stdout.replace(join(dir, 'local'), join(dir, 'one')));
  }, 120_000);

  it('a worker killed mid-run: its run is taken back and run by the other, every run counted once', async () => {
    const queue = newQueue('kill');
    // Locks that lapse fast: a dead worker's run is taken back within seconds.
    const fast = ['--concurrency', '1', '--lock-ms', '2000', '--stalled-ms', '500'];
    const [victim, survivor] = await Promise.all([startWorker(queue, fast), startWorker(queue, fast)]);
    const swept = sweep('kill', queue);
    await victim.waitFor((line) => line.msg === 'job started');
    victim.child.kill('SIGKILL');
    await victim.exited;
    const started = victim.lines.filter((l) => l.msg === 'job started').map((l) => l.job!);
    const finished = new Set(victim.lines.filter((l) => l.msg === 'job done').map((l) => l.job!));
    const cut = started.filter((job) => !finished.has(job));
    const r = await swept;
    expect(r.code).toBe(0);
    expect(csvOf('kill')).toBe(local);
    // The run the killed worker held was run again, and reported so.
    expect(cut.length).toBeGreaterThan(0);
    const retried = /retried after a worker stopped or failed: (.*)/.exec(r.stdout)?.[1]?.split(', ') ?? [];
    expect(retried).toEqual(expect.arrayContaining(cut));
    expect(survivor.lines.filter((l) => l.msg === 'job done').map((l) => l.job)).toEqual(expect.arrayContaining(cut));
    expect(await stop(survivor)).toBe(0);
  }, 120_000);

  it("a worker whose data file differs from the submitter's refuses the runs: the sweep fails naming the file", async () => {
    // Another tree: the same strategies, the sample data with one line changed.
    const tree = join(dir, 'elsewhere');
    mkdirSync(join(tree, 'data', 'sample'), { recursive: true });
    symlinkSync(resolve('strategies'), join(tree, 'strategies'));
    const sample = readFileSync('data/sample/ticks.jsonl', 'utf8').split('\n');
    sample[5] = sample[5]!.replace(/"size":"[^"]*"/, '"size":"9"');
    writeFileSync(join(tree, 'data', 'sample', 'ticks.jsonl'), sample.join('\n'));
    const queue = newQueue('refuse');
    const worker = await startWorker(queue, ['--concurrency', '1'], tree);
    const r = await sweep('refused', queue);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /sweep failed: job run-\d{3}: data file data\/sample\/ticks\.jsonl differs from the submitter's copy \(sha256 [0-9a-f]{12}… here, [0-9a-f]{12}… submitted\)/,
    );
    expect(worker.lines.filter((l) => l.msg === 'job done')).toEqual([]);
    expect(await stop(worker)).toBe(0);
  }, 60_000);
});
