// The thread side of a synchronous call (sync-thread.ts): the start it was given, its ending told to a caller that
// waits, and an answer posted before the shared flag is set and waited on.
import { workerData } from 'node:worker_threads';
import { SLOT, type Answer, type ThreadStart, type WireError } from './sync-thread-protocol.js';

/** The thread's start; from here on, however the thread ends, a caller waiting for an answer stops waiting. */
export function threadStart<T extends object = object>(): ThreadStart & T {
  const start = workerData as ThreadStart & T;
  process.on('exit', () => {
    Atomics.store(start.state, SLOT.ended, 1);
    Atomics.notify(start.state, SLOT.answered);
  });
  return start;
}

/** An error as it crosses to the caller. */
export function wire(err: unknown): WireError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? { message: err.message, code } : { message: err.message };
  }
  return { message: String(err) };
}

/** Posts the answer of the call that waits, then wakes the caller. */
export function reply(start: ThreadStart, a: Answer): void {
  try {
    start.port.postMessage(a);
  } catch (err) {
    start.port.postMessage({ error: wire(err) } satisfies Answer);
  }
  Atomics.store(start.state, SLOT.answered, 1);
  Atomics.notify(start.state, SLOT.answered);
}
