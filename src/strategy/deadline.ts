// A strategy hook's wall-clock budget (daemon.hookTimeoutMs): node:vm's watchdog stops a hook that runs over it.
import vm from 'node:vm';

/** A hook ran over its budget and was stopped. */
export class HookTimeoutError extends Error {}

/**
 * Runs functions under a wall-clock budget. node:vm's watchdog interrupts whatever JavaScript runs during
 * `runInContext`, functions defined outside the context included, and the interruption ends at that call:
 * the caller goes on. A strategy cannot catch it (a `try` in the hook does not stop it).
 */
export class Deadline {
  private pending: (() => unknown) | undefined;
  private readonly context = vm.createContext({ run: () => this.pending!() });
  private readonly script = new vm.Script('run()');

  constructor(readonly timeoutMs: number) {}

  run<T>(fn: () => T): T {
    this.pending = fn;
    try {
      return this.script.runInContext(this.context, { timeout: this.timeoutMs }) as T;
    } catch (err) {
      if ((err as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new HookTimeoutError(`ran over its ${this.timeoutMs} ms budget and was stopped`);
      throw err;
    } finally {
      this.pending = undefined;
    }
  }
}
