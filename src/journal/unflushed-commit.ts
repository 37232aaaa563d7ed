// A write transaction committed without a flush to disk of its own (sql-journal.ts says which writes may be): what
// such a commit holds becomes durable with the next flushed commit of the same store, whose log is written in order.
import type { SqlDatabase } from './sqlite-thread.js';

/**
 * How a store leaves a commit unflushed: what is said before the transaction begins (a setting a transaction cannot
 * change), first inside it (a setting that ends with it), and after it ends, committed or not (the flushed setting back).
 */
export interface UnflushedCommit {
  before?: string;
  first?: string;
  after?: string;
}

/** Runs `transaction` (one write transaction, which calls `first` first inside it) with its commit left unflushed. */
export function commitUnflushed<R>(db: SqlDatabase, how: UnflushedCommit, transaction: (first: () => void) => R): R {
  if (how.before) db.exec(how.before);
  try {
    return transaction(() => {
      if (how.first) db.exec(how.first);
    });
  } finally {
    if (how.after) db.exec(how.after);
  }
}
