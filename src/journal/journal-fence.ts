// The fence in a journal's store (the journal_fence row, migration 7 of both SQLite and PostgreSQL): the largest
// lease token any writer has written under. A write transaction passes it first: refused when a larger token is
// recorded, recording its own otherwise, so a newer lease holder's first write locks every older one out.
import { JournalFencedError } from './journal.js';
import type { SqlStatement } from './sqlite-thread.js';

/** A token as a lease hands it out. */
export function checkFenceToken(token: number): void {
  if (!Number.isSafeInteger(token) || token < 0) throw new RangeError(`a fencing token is a non-negative safe integer, not ${token}`);
}

/**
 * Inside a write transaction: throws JournalFencedError (naming both tokens) when the store holds a larger token than
 * `token`, records `token` otherwise. The update takes the fence row's write lock (SQLite's database lock, PostgreSQL's
 * row lock, its condition checked again on the newest row after a wait), so no newer holder can record its token
 * between this check and the transaction's commit.
 */
export function passFence(prepared: (sql: string) => SqlStatement, token: number): void {
  if (prepared('UPDATE journal_fence SET token = ? WHERE id = 1 AND token <= ?').run(token, token).changes === 1) return;
  const recorded = (prepared('SELECT token FROM journal_fence WHERE id = 1').get() as { token: number }).token;
  throw new JournalFencedError(token, recorded);
}
