// Waiting for a journal whose write lock another process holds: a daemon stopped in the middle of a write (frozen,
// swapped out) keeps a SQLite file's lock until it runs again. What must write to open the journal (its schema
// brought up to date, its first binding) asks again without holding up the process, as the fence does
// (app/standby.ts), and gives up at a bound, naming the file.
import type { Clock } from '../util/clock.js';

/** How often an opener asks again for a journal another process holds locked. */
export const JOURNAL_LOCK_ASK_MS = 200;

/** Another process held the journal's write lock for as long as the opener would wait. */
export class JournalLockedError extends Error {
  constructor(
    readonly where: string,
    readonly waitedMs: number,
    /** What set the bound, as the operator finds it (a config key). */
    bound: string,
  ) {
    super(
      `journal ${where} stayed locked by another process for ${waitedMs} ms (${bound}): a process holds its write lock without finishing ` +
        '(a daemon stopped in the middle of a write, or another one writing to it): resume or stop that process, then try again',
    );
    this.name = 'JournalLockedError';
  }
}

export interface JournalLockWait {
  clock: Clock;
  /** How long to wait at most (ms); 0: not at all. */
  boundMs: number;
  /** The bound as the operator finds it, for the error (`journal.lockWaitMs`). */
  bound: string;
  /** Told once, when the lock is first found held. */
  onWaiting?: () => void;
  /** Told when `attempt` went through after a wait. */
  onDone?: (waitedMs: number) => void;
  /** Ends the wait early: rejects with what it resolves to (a stop, a lost lease). */
  until?: Promise<Error>;
}

/**
 * Runs `attempt` (which throws at once, writing nothing, when another process holds the lock: `busy` tells that
 * error) until it goes through, asking again every JOURNAL_LOCK_ASK_MS. Rejects with JournalLockedError naming
 * `where` once `boundMs` has passed, or with what `until` resolves to when it does first.
 */
export async function waitForJournalLock<T>(where: string, attempt: () => T, busy: (err: unknown) => boolean, wait: JournalLockWait): Promise<T> {
  const { clock } = wait;
  let ended: Error | undefined;
  void wait.until?.then((why) => (ended = why));
  const sinceMs = clock.now();
  for (let told = false; ; told = true) {
    if (ended !== undefined) throw ended;
    try {
      const done = attempt();
      if (told) wait.onDone?.(clock.now() - sinceMs);
      return done;
    } catch (err) {
      if (!busy(err)) throw err;
    }
    const waitedMs = clock.now() - sinceMs;
    if (waitedMs >= wait.boundMs) throw new JournalLockedError(where, waitedMs, wait.bound);
    if (!told) wait.onWaiting?.();
    // A sleep that keeps the process alive (a command has nothing else to): at most one ask's time after a stop.
    await Promise.race([clock.sleep(Math.min(JOURNAL_LOCK_ASK_MS, wait.boundMs - waitedMs)), ...(wait.until ? [wait.until] : [])]);
  }
}
