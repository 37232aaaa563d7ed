// What a caller and its worker thread share to make a call synchronous (sync-thread.ts, sync-thread-serve.ts): the
// slots of a shared Int32Array, what the thread is given at its start, and how an answer and an error cross.
import type { MessagePort } from 'node:worker_threads';

/** Slots of the shared Int32Array. */
export const SLOT = {
  /** 0 while a call waits for its answer; 1 once the answer is on the port. */
  answered: 0,
  /** 1 while a write handed over without waiting has failed and the failure is not told yet. */
  failed: 1,
  /** 1 once the thread has ended. */
  ended: 2,
} as const;

export const SLOTS = 3;

/** What the thread is given at its start (with what its own script needs besides). */
export interface ThreadStart {
  port: MessagePort;
  state: Int32Array;
}

/** An error as it crosses: the driver's message and code (SQLite's SQLITE_CONSTRAINT_…, PostgreSQL's SQLSTATE). */
export interface WireError {
  message: string;
  code?: string;
}

export type Answer = { value: unknown } | { error: WireError };
