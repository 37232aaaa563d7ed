// Settings a store's write transaction runs under, as SQL said around it: a commit left unflushed (sql-writes.ts says
// which writes may be), or a write that does not wait on another connection's lock (the fence a new lease holder
// records: a holder that stopped mid-write holds that lock until it runs again).
import type { SqlDatabase } from './sqlite-thread.js';

/**
 * What is said before the transaction begins (a setting a transaction cannot change), first inside it (a setting
 * that ends with it), and after it ends, committed or not (the usual setting back).
 */
export interface TransactionSettings {
  before?: string;
  first?: string;
  after?: string;
}

/** A write that takes the store's write lock at once or fails: its settings, and how the store says it was held. */
export interface NoWaitWrite {
  settings: TransactionSettings;
  /** Whether `err` says another connection held the lock. */
  busy(err: unknown): boolean;
}

/** Runs `transaction` (one write transaction, which calls `first` first inside it) under `how`. */
export function runWithSettings<R>(db: SqlDatabase, how: TransactionSettings, transaction: (first: () => void) => R): R {
  if (how.before) db.exec(how.before);
  try {
    return transaction(() => {
      if (how.first) db.exec(how.first);
    });
  } finally {
    if (how.after) db.exec(how.after);
  }
}
