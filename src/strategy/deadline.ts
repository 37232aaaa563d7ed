// A strategy hook's wall-clock budget (daemon.hookTimeoutMs): a hook that runs over it is stopped.
import vm from 'node:vm';
import { HookInterruptedError, HookWatchdog } from './hook-watchdog.js';

/** A hook ran over its budget and was stopped. */
export class HookTimeoutError extends Error {}
export { HookInterruptedError };

/**
 * Runs functions under a wall-clock budget. What runs is interrupted wherever it is, functions defined outside a vm
 * context included, and the interruption ends at this call: the caller goes on. A strategy cannot catch it (a `try` in
 * the hook does not stop it).
 *
 * On the main thread the process's one watchdog does it (hook-watchdog.ts: no thread per call). Until its keeper is up,
 * off the main thread, or should it fail, node:vm's own watchdog does, which starts and joins a thread per call.
 */
export class Deadline {
  private pending: (() => unknown) | undefined;
  private readonly context = vm.createContext({ run: () => this.pending!() });
  private readonly script = new vm.Script('run()');

  constructor(readonly timeoutMs: number) {}

  run<T>(fn: () => T): T {
    const watched = HookWatchdog.get()?.run(fn, this.timeoutMs);
    if (watched === undefined) return this.runAlone(fn);
    if (watched === 'overran') throw this.overran();
    if (watched === 'interrupted') throw new HookInterruptedError('stopped by SIGINT: the process is stopping');
    return watched.value;
  }

  /** Under node:vm's per-call watchdog. */
  private runAlone<T>(fn: () => T): T {
    this.pending = fn;
    try {
      return this.script.runInContext(this.context, { timeout: this.timeoutMs }) as T;
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw this.overran();
      throw err;
    } finally {
      this.pending = undefined;
    }
  }

  private overran(): HookTimeoutError {
    return new HookTimeoutError(`ran over its ${this.timeoutMs} ms budget and was stopped`);
  }
}
