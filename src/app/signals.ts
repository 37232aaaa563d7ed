// How a long-running command waits to be stopped: SIGTERM or SIGINT, optionally a time limit, SIGHUP on the side.
import type { Clock } from '../util/clock.js';

export type StopSignal = 'SIGTERM' | 'SIGINT';

export interface WaitForStopOptions {
  /** Also stop `afterMs` from now, timed by `clock`, resolving with 'timeout'. */
  timeout?: { afterMs: number; clock: Clock };
  /** Called on every SIGHUP while the process lives (a SIGHUP without a handler would end the process). */
  onHangup?: () => void;
}

/**
 * Resolves with the first stop signal, or 'timeout'. Each stop signal is listened for once (`process.once`) and
 * the listeners are left in place: a SIGINT after a SIGTERM (or the reverse) does nothing while the command winds
 * down, and a second signal of the same kind takes its default action (ends the process).
 */
export function waitForStop(opts: WaitForStopOptions = {}): Promise<StopSignal | 'timeout'> {
  return new Promise((resolve) => {
    const timer = opts.timeout?.clock.setTimer(() => resolve('timeout'), opts.timeout.afterMs);
    const stop = (signal: StopSignal) => {
      timer?.cancel();
      resolve(signal);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    if (opts.onHangup) process.on('SIGHUP', opts.onHangup);
  });
}
