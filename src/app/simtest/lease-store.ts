// The account lease's store for a simulated run: in memory, on the run's virtual clock (the store's own clock), with
// holders that cannot reach it for a while (a partition) and the record of who held it when.
import type { LeaseGrant, LeaseHolder, LeaseStore } from '../../domain/lease.js';
import type { TimeSource } from '../../util/clock.js';

interface Held {
  holder: string;
  token: number;
  untilMs: number;
}

export class MemoryLeaseStore {
  private held: Held | undefined;
  private lastToken = 0;
  /** Holders that cannot reach the store until then. */
  private readonly cutUntil = new Map<string, number>();

  constructor(private readonly clock: TimeSource) {}

  /** Who holds the lease now by the store's clock (undefined: nobody, or it lapsed). */
  holderNow(): Held | undefined {
    const h = this.held;
    return h && this.clock.now() < h.untilMs ? h : undefined;
  }

  /** `holder` cannot reach the store until `untilMs`. */
  cut(holder: string, untilMs: number): void {
    this.cutUntil.set(holder, Math.max(untilMs, this.cutUntil.get(holder) ?? 0));
  }

  /** The store as `holder` reaches it (the same store for every holder; a cut one's calls fail). */
  for(holder: () => string): LeaseStore {
    const reach = () => {
      if (this.clock.now() < (this.cutUntil.get(holder()) ?? 0)) throw new Error('lease store unreachable');
    };
    return {
      acquire: async (_account, who, ttlMs): Promise<LeaseGrant | null> => {
        reach();
        const now = this.clock.now();
        const h = this.holderNow();
        if (h && h.holder !== who) return null;
        if (h) h.untilMs = now + ttlMs;
        else this.held = { holder: who, token: ++this.lastToken, untilMs: now + ttlMs };
        return { token: this.held!.token, ttlMs };
      },
      renew: async (_account, who, token, ttlMs) => {
        reach();
        const h = this.holderNow();
        if (!h || h.holder !== who || h.token !== token) return false;
        h.untilMs = this.clock.now() + ttlMs;
        return true;
      },
      release: async (_account, who, token) => {
        reach();
        const h = this.holderNow();
        if (h && h.holder === who && h.token === token) this.held = undefined;
      },
      current: async (): Promise<LeaseHolder | null> => {
        reach();
        const h = this.holderNow();
        return h ? { holder: h.holder, token: h.token, ttlLeftMs: h.untilMs - this.clock.now() } : null;
      },
      close: async () => undefined,
    };
  }
}
