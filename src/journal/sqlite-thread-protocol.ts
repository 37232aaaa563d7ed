// What the two sides of a database on a worker thread (sqlite-thread.ts, sqlite-thread-worker.ts) say to each other.
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

/** What the thread is given at its start. */
export interface ThreadStart {
  port: MessagePort;
  state: Int32Array;
}

/** A call that waits for its answer. Statements are named by the number their text was given. */
export type Call =
  | ['run' | 'get' | 'all', number, unknown[]]
  | ['pragma', string, boolean]
  | ['inTransaction']
  | ['serialize']
  | ['save', string]
  | ['close']
  /** Nothing but the failure of a write handed over before, if one failed. */
  | ['check'];

export interface Request {
  /** Statement texts by number, each sent once, before its first use. */
  defs?: Array<[number, string]>;
  /** Writes that nobody waits for, in order: a statement's number, then its parameters (null: its text exec'd). */
  writes?: Array<number | unknown[] | null>;
  call?: Call;
}

/** An error as it crosses: SQLite's message and code (SQLITE_CONSTRAINT_…) when it came from SQLite. */
export interface WireError {
  message: string;
  code?: string;
}

export type Answer = { value: unknown } | { error: WireError };
