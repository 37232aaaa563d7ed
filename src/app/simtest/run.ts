// Runs one seed of the simulator of the whole daemon in this thread (world.ts): the run's journal in a folder of its
// own, and the errors nothing caught in the daemon's handlers counted as the run's failures, where they happen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { config } from 'rxjs';
import { timeoutProvider } from 'rxjs/internal/scheduler/timeoutProvider';
import { Crash } from './process.js';
import { World, type RunOptions, type RunResult } from './world.js';

/** The run going on in this thread: an error thrown out of the daemon's handlers is its failure. */
let active: World | undefined;

/**
 * An error nothing caught (thrown out of a stream's handler, or a promise nobody waits on): in a daemon, the end of
 * the process. Those of a process that died already (Crash) are its death, not a failure.
 */
function uncaught(err: unknown): void {
  if (err instanceof Crash || !active) return;
  active.thrown(err);
}

let listening = false;

/**
 * In this thread, errors nothing caught go to the run at once: what RxJS and the direct streams report from a timer
 * (its timer provider) is reported where it happens, at the run's instant of virtual time, so a replay sees it at the
 * same step. (No other timer of RxJS runs in a simulation.)
 */
function reportUncaughtAtOnce(): void {
  config.onUnhandledError = uncaught;
  timeoutProvider.delegate = {
    setTimeout: (handler: (...args: unknown[]) => void, _timeout?: number, ...args: unknown[]) =>
      (handler(...args), 0) as unknown as ReturnType<typeof setTimeout>,
    clearTimeout: () => undefined,
  };
  process.on('unhandledRejection', uncaught);
}

/** Runs one seed; resolves with what broke (nothing, in a good build). */
export async function runSimulation(o: RunOptions): Promise<RunResult> {
  if (!listening) {
    reportUncaughtAtOnce();
    listening = true;
  }
  const dir = mkdtempSync(join(o.dir ?? tmpdir(), 'sextant-simtest-'));
  const world = new World(o, join(dir, 'journal.sqlite'));
  active = world;
  try {
    return await world.run();
  } finally {
    active = undefined;
    // SEXTANT_SIMTEST_KEEP keeps the run's journal for a look (a replay prints where).
    if (process.env.SEXTANT_SIMTEST_KEEP) process.stderr.write(`journal kept: ${join(dir, 'journal.sqlite')}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
