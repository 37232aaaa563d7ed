// The simulator of the whole daemon, from the command line: `npm run simtest -- --seeds N` runs seeds 1…N (or from
// --from) on worker threads, one per core; a failing seed is printed with the command that replays it, and its
// schedule is shrunk to the smallest that still fails. `--seed S` replays one seed (with `--schedule JSON`, that
// schedule instead of the seed's draw) and prints its figures and the digest of every write that reached the venue.
import { existsSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Fault } from './schedule.js';
import { parseSchedule, scheduleText } from './schedule.js';
import { simEnvironment } from './setup.js';
import { runSimulation } from './run.js';
import { SIM_START_MS, type RunResult } from './world.js';

interface Args {
  seeds: number;
  from: number;
  seed: number | undefined;
  schedule: Fault[] | undefined;
  minutes: number;
  workers: number;
  shrink: number;
  quiet: boolean;
  /** Stop at the first failure (the runs under way finish); with a name, at the first that breaks that invariant. */
  stop: boolean | string;
}

const USAGE =
  'usage: npm run simtest -- --seeds N [--from S] [--minutes M] [--workers W] [--shrink K] [--stop | --stop-on INVARIANT] [--quiet] | --seed S [--schedule JSON]';

function parseArgs(argv: string[]): Args {
  const a: Args = {
    seeds: 100,
    from: 1,
    seed: undefined,
    schedule: undefined,
    minutes: 10,
    workers: availableParallelism(),
    shrink: 3,
    quiet: false,
    stop: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    const int = () => {
      const v = Number(value());
      if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${flag}: a whole number, not ${argv[i]}\n${USAGE}`);
      return v;
    };
    if (flag === '--seeds') a.seeds = int();
    else if (flag === '--from') a.from = int();
    else if (flag === '--seed') a.seed = int();
    else if (flag === '--schedule') a.schedule = parseSchedule(value());
    else if (flag === '--minutes') a.minutes = int();
    else if (flag === '--workers') a.workers = Math.max(1, int());
    else if (flag === '--shrink') a.shrink = int();
    else if (flag === '--quiet') a.quiet = true;
    else if (flag === '--stop') a.stop = true;
    else if (flag === '--stop-on') a.stop = value();
    else throw new Error(`unknown argument ${flag}\n${USAGE}`);
  }
  return a;
}

/** Where runs keep their journal files: memory-backed when the system has it. */
function runDir(): string {
  return process.env.SEXTANT_SIMTEST_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
}

type Env = Awaited<ReturnType<typeof simEnvironment>>;

function run(env: Env, seed: number, minutes: number, schedule?: Fault[]): Promise<RunResult> {
  return runSimulation({ seed, minutes, ...env, dir: runDir(), ...(schedule ? { schedule } : {}) });
}

/** The command that replays a run exactly. */
export function replayCommand(seed: number, minutes: number, schedule?: Fault[]): string {
  const m = minutes === 10 ? '' : ` --minutes ${minutes}`;
  return `npm run simtest -- --seed ${seed}${m}${schedule ? ` --schedule '${scheduleText(schedule)}'` : ''}`;
}

/**
 * The smallest schedule that still fails the same way: faults taken out one at a time while the run still breaks the
 * same invariant, until none can go.
 */
export async function shrink(env: Env, failed: RunResult, minutes: number): Promise<{ schedule: Fault[]; result: RunResult; runs: number }> {
  const invariant = failed.violations[0]!.invariant;
  let schedule = failed.schedule;
  let result = failed;
  let runs = 0;
  for (let progress = true; progress;) {
    progress = false;
    for (let i = 0; i < schedule.length; i++) {
      const fewer = schedule.filter((_, k) => k !== i);
      const r = await run(env, failed.seed, minutes, fewer);
      runs++;
      if (r.violations[0]?.invariant !== invariant) continue;
      schedule = fewer;
      result = r;
      progress = true;
      i--;
    }
  }
  return { schedule, result, runs };
}

function describe(r: RunResult): string {
  const v = r.violations[0]!;
  return `seed ${r.seed}: ${v.invariant} at +${Math.round((v.atMs - SIM_START_MS) / 1000)} s: ${v.detail}`;
}

async function replay(a: Args): Promise<number> {
  const env = await simEnvironment();
  const r = await run(env, a.seed!, a.minutes, a.schedule);
  process.stdout.write(`seed ${r.seed}: ${r.violations.length ? 'FAILED' : 'passed'} ${JSON.stringify(r.figures)}\n`);
  process.stdout.write(`schedule ${scheduleText(r.schedule)}\n`);
  process.stdout.write(`digest ${r.digest}\n`);
  for (const v of r.violations) process.stdout.write(`${v.invariant}: ${v.detail}\n`);
  return r.violations.length ? 1 : 0;
}

/** Runs the seeds on worker threads (each asks for the next seed when done); prints failures as they come. */
async function many(a: Args): Promise<number> {
  const started = performance.now();
  const seeds = Array.from({ length: a.seeds }, (_, i) => a.from + i);
  const failures: RunResult[] = [];
  let done = 0;
  let virtualMs = 0;
  const workers = Math.min(a.workers, seeds.length);
  await Promise.all(
    Array.from({ length: workers }, () => {
      const w = new Worker(new URL(import.meta.url), { workerData: { minutes: a.minutes } });
      let finished = false;
      return new Promise<void>((resolve, reject) => {
        const next = () => {
          const seed = seeds.shift();
          if (seed === undefined) {
            finished = true;
            return void w.terminate().then(() => resolve());
          }
          w.postMessage(seed);
        };
        w.on('message', (r: RunResult) => {
          done++;
          virtualMs += r.figures.virtualMs;
          if (r.violations.length) {
            failures.push(r);
            process.stdout.write(`FAILED ${describe(r)}\n  replay: ${replayCommand(r.seed, a.minutes)}\n`);
            if (a.stop === true || a.stop === r.violations[0]!.invariant) seeds.length = 0;
          }
          if (!a.quiet && done % 500 === 0) process.stdout.write(`${done} runs, ${failures.length} failed\n`);
          next();
        });
        w.on('error', reject);
        w.on('exit', (code) => finished || reject(new Error(`a simulation thread ended before its seeds were done (exit ${code})`)));
        next();
      });
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  const env = failures.length && a.shrink ? await simEnvironment() : undefined;
  for (const f of failures.slice(0, a.shrink)) {
    const s = await shrink(env!, f, a.minutes);
    process.stdout.write(`shrunk seed ${f.seed} from ${f.schedule.length} faults to ${s.schedule.length} (${s.runs} runs): ${describe(s.result)}\n`);
    process.stdout.write(`  replay: ${replayCommand(f.seed, a.minutes, s.schedule)}\n`);
  }
  const perMinute = Math.round((done / wallS) * 60);
  process.stdout.write(
    `${done} runs of ${a.minutes}+ virtual minutes (${Math.round(virtualMs / 60_000)} in all) in ${wallS.toFixed(1)} s on ${workers} threads: ${perMinute} runs a minute; ${failures.length} failed\n`,
  );
  return failures.length ? 1 : 0;
}

async function worker(): Promise<void> {
  const env = await simEnvironment();
  const { minutes } = workerData as { minutes: number };
  parentPort!.on('message', (seed: number) => {
    void run(env, seed, minutes).then(
      (r) => parentPort!.postMessage(r),
      (err: unknown) =>
        parentPort!.postMessage({
          seed,
          schedule: [],
          digest: '',
          figures: { virtualMs: 0 },
          violations: [{ invariant: 'needs-person', atMs: 0, detail: `the run threw: ${(err as Error).stack ?? String(err)}` }],
        }),
    );
  });
}

if (!isMainThread) void worker();
else if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  let a: Args;
  try {
    a = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  (a.seed !== undefined ? replay(a) : many(a)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(2);
    },
  );
}
