// What a PostgreSQL connection (postgres-connection.ts) says to its thread (postgres-thread-worker.ts): statements run
// in order in one message, the answer being the last one's result (or the first failure, the rest not run).

/** How a statement's result is answered: rows changed, the first row, all rows; `exec`: a script without parameters. */
export type Mode = 'run' | 'get' | 'all' | 'exec';

/** A statement: its text (`$n` placeholders), its parameters, and what is answered of it. */
export type Statement = [text: string, params: unknown[], mode: Mode];

export interface PostgresRequest {
  batch?: Statement[];
  /** Ends the connection. */
  close?: true;
}

/** What the thread is given at its start besides its port and flags. */
export interface PostgresThreadData {
  url: string;
}

/**
 * How long a statement of the journal waits for a lock another session holds (SET lock_timeout, ms): SQLite's busy
 * timeout is the same.
 */
export const LOCK_TIMEOUT_MS = 10_000;
