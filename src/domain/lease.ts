// The account lease: one writer per account. A store (Redis, or PostgreSQL when that is the journal) grants it to
// one holder at a time for a time to live. Every grant to a new holder (or after the lease lapsed) carries a larger
// fencing token; the journal checks the token on every write, so a holder whose lease lapsed cannot write once a
// newer holder has. Times to live are counted by the store's clock, never by the holders'.

export interface LeaseGrant {
  /** The fencing token: strictly larger than any token granted for this account before. */
  token: number;
  ttlMs: number;
}

export interface LeaseHolder {
  holder: string;
  token: number;
  /** What is left of its time to live, by the store's clock. */
  ttlLeftMs: number;
}

export interface LeaseStore {
  /**
   * Grants the lease of `account` to `holder` when it is free or lapsed (with a new, larger token), or renews it
   * when `holder` holds it already (same token). Null when another holder has it.
   */
  acquire(account: string, holder: string, ttlMs: number): Promise<LeaseGrant | null>;
  /** Extends the lease while `holder` holds it with `token`; false when it lapsed or another took it. */
  renew(account: string, holder: string, token: number, ttlMs: number): Promise<boolean>;
  /** Gives the lease up, only while `holder` still holds it with `token`. */
  release(account: string, holder: string, token: number): Promise<void>;
  /** Who holds the lease of `account` now, if anyone. */
  current(account: string): Promise<LeaseHolder | null>;
  close(): Promise<void>;
}
