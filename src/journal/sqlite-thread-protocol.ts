// What the two sides of a database on a worker thread (sqlite-thread.ts, sqlite-thread-worker.ts) say to each other.
export { SLOT, type Answer, type ThreadStart, type WireError } from './sync-thread-protocol.js';

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
