// One writer per account: the daemon's hold on the account's lease. A standby waits until the lease is free or has
// lapsed; the holder renews it every third of its time to live and gives up trading on its own when no renewal has
// succeeded within 0.8 of it (counted from when that renewal was sent, so a slow answer never stretches the hold
// beyond what the store granted). The store counts the time to live on its own clock: a holder that stops renewing
// loses the lease after at most ttlMs, and the next grant carries a larger fencing token.
import { createHash, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LeaseHolder, LeaseStore } from '../domain/lease.js';
import { sleepUnless, type Clock, type ClockTimer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface AccountLeaseOptions {
  store: LeaseStore;
  /** The account's key in the store: a digest of venue and account (see leaseAccountKey), never the API key. */
  account: string;
  holder?: string;
  ttlMs: number;
  clock: Clock;
  logger: Logger;
}

/** The share of the time to live within which a renewal must have succeeded, or the holder stops trading. */
const HOLD_FRACTION = 0.8;

/** The key of a venue's account in the lease store: a digest, so neither URL nor key digest is spelled out there. */
export function leaseAccountKey(binding: { venue: string; account: string }): string {
  return createHash('sha256').update(`${binding.venue}\n${binding.account}`).digest('hex').slice(0, 24);
}

export class AccountLease {
  readonly holder: string;
  private token: number | undefined;
  /** When the last renewal that succeeded was sent. */
  private sentAtMs = 0;
  private renewTimer: ClockTimer | undefined;
  private deadline: ClockTimer | undefined;
  private lost = false;
  private readonly log: Logger;

  constructor(private readonly opts: AccountLeaseOptions) {
    // Unique to this process whatever the name: two daemons given one name (a shared config, two hosts whose
    // containers are both pid 1) must never pass for the same holder.
    this.holder = `${opts.holder ?? hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.log = opts.logger.child({ component: 'lease' });
  }

  /** The fencing token while the lease is held. */
  get fencingToken(): number | undefined {
    return this.token;
  }

  /** Whether the lease is held now, by this process's reckoning (always on the safe side of the store's). */
  held(): boolean {
    return this.token !== undefined && !this.lost && this.opts.clock.now() < this.sentAtMs + this.opts.ttlMs * HOLD_FRACTION;
  }

  /**
   * Waits until the lease is this daemon's, asking every fifth of the time to live; `onWaiting` is told who holds
   * it while it waits (null: nobody, a store that does not answer). Resolves to the fencing token, or undefined
   * when `stop` resolves first.
   */
  async take(stop: Promise<unknown>, onWaiting?: (holder: LeaseHolder | null, err?: Error) => void): Promise<number | undefined> {
    const { store, account, ttlMs, clock } = this.opts;
    let stopped = false;
    void stop.then(() => (stopped = true));
    let told: string | undefined;
    while (!stopped) {
      const sentAtMs = clock.now();
      try {
        const grant = await store.acquire(account, this.holder, ttlMs);
        if (grant && stopped) {
          // Stopped while asking: given back, nothing starts.
          await store.release(account, this.holder, grant.token).catch(() => undefined);
          return undefined;
        }
        if (grant) {
          this.token = grant.token;
          this.sentAtMs = sentAtMs;
          this.lost = false;
          this.log.info({ holder: this.holder, fencingToken: grant.token, ttlMs }, 'account lease taken');
          return grant.token;
        }
        const current = await store.current(account);
        const now = current ? `${current.holder}#${current.token}` : 'none';
        if (now !== told)
          this.log.info(
            { heldBy: current?.holder, fencingToken: current?.token, ttlLeftMs: current?.ttlLeftMs },
            'standby: the account lease is held by another daemon',
          );
        told = now;
        onWaiting?.(current);
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'standby: the lease store does not answer');
        told = undefined;
        onWaiting?.(null, err as Error);
      }
      await sleepUnless(clock, Math.max(100, Math.floor(ttlMs / 5)), stop);
    }
    return undefined;
  }

  /** Renews the lease every third of its time to live; `onLost` is called once when it is no longer held. */
  keep(onLost: (reason: string) => void): void {
    const { store, account, ttlMs, clock } = this.opts;
    const token = this.token;
    if (token === undefined) throw new Error('the account lease is not held');
    const lose = (reason: string) => {
      if (this.lost) return;
      this.lost = true;
      this.stopTimers();
      this.log.error({ holder: this.holder, fencingToken: token, reason }, 'account lease lost: trading stops');
      onLost(reason);
    };
    const armDeadline = () => {
      this.deadline?.cancel();
      this.deadline = clock.setTimer(
        () => lose(`no renewal succeeded within ${Math.round(ttlMs * HOLD_FRACTION)} ms`),
        Math.max(0, this.sentAtMs + ttlMs * HOLD_FRACTION - clock.now()),
      );
    };
    const renew = async () => {
      const sentAtMs = clock.now();
      try {
        const renewed = await store.renew(account, this.holder, token, ttlMs);
        // Given up meanwhile: nothing more to do.
        if (this.token !== token || this.lost) return;
        if (renewed) {
          this.sentAtMs = sentAtMs;
          armDeadline();
        } else {
          lose('the store refused the renewal: the lease lapsed or another daemon holds it');
        }
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'lease renewal failed: retried');
      }
      if (!this.lost && this.token === token) this.renewTimer = clock.setTimer(() => void renew(), Math.floor(ttlMs / 3));
    };
    armDeadline();
    this.renewTimer = clock.setTimer(() => void renew(), Math.floor(ttlMs / 3));
  }

  private stopTimers(): void {
    this.renewTimer?.cancel();
    this.deadline?.cancel();
    this.renewTimer = undefined;
    this.deadline = undefined;
  }

  /**
   * Stops renewing, gives the lease up while it is still held (a standby takes over at once instead of after the
   * time to live) and closes the store.
   */
  async close(): Promise<void> {
    this.stopTimers();
    const token = this.token;
    this.token = undefined;
    if (token !== undefined && !this.lost) {
      await this.opts.store
        .release(this.opts.account, this.holder, token)
        .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'lease release failed: it lapses on its own'));
    }
    await this.opts.store.close();
  }
}
