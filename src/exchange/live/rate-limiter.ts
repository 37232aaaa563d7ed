// Request pacing: per surface an IP pool and a UID pool charged with each endpoint's weights, the 10 requests/s
// cap on order endpoints, the account's order-creation rate, priorities and 429 cool-offs.
//
// Invariant: in ANY interval of one window's length (not only in windows aligned with ours) the weight started
// stays within the budget. Fixed-window reservoirs cannot promise that (2x the budget across a boundary), so every
// pool is a token bucket: at most `burst` tokens banked, refilled continuously at `refill` per window; the most
// any interval of windowMs can see is burst + refill. A request takes its weight from all of its pools at once or
// from none (token-buckets.ts), so no pool's tokens are ever held while another is short, and the plan needs no
// reserve for such holdings however many processes share the pools.
//
// Pools are keyed by what the venue counts: IP pools by the egress (`egress`, default the host name), UID pools,
// the order-endpoint cap and the order-creation rate by account (a digest of the API key, never the key). Shared
// through Redis, the buckets are charged by one Lua script over the request's pool keys (all or nothing, refilled
// from the Redis server's clock). Bottleneck's own Redis datastore cannot charge several limiters atomically, so
// bottleneck is used here for what stays local: the queue of requests that found a pool short, in priority order
// (cancel > place > read), one at a time per surface; the head of a queue claims the tokens it waits for in the
// shared buckets, so lighter requests of other processes cannot starve it. A request that finds its tokens and
// nobody as urgent waiting is charged and sent at once, with no scheduling hop.
import Bottleneck from 'bottleneck';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Surface } from '../../domain/market.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { chargesOf, maxWeights, type Endpoint, type EndpointKind } from '../endpoints.js';
import { LocalBuckets, RedisBuckets, type BucketCharge, type BucketShape, type BucketStore } from './token-buckets.js';

export interface WindowBudget {
  /** Weight (or requests) allowed in any interval of windowMs. */
  budget: number;
  windowMs: number;
}

export interface SurfaceBudget {
  ip: WindowBudget;
  uid: WindowBudget;
}

export interface RateLimiterConfig {
  spot: SurfaceBudget;
  futures: SurfaceBudget;
  /** The venue's cap on order endpoints (place, cancel, trigger place/cancel), per surface and account. */
  orderRequests: WindowBudget;
  /** Share of each budget the limiter plans to use (headroom for latency jitter and other tools on the key). */
  usableFraction: number;
  /**
   * How much the time from a request's charge here to its arrival at the venue varies (ms): the venue counts arrivals,
   * so the limiter keeps the usable weight within any interval of a window plus this. Default 0.
   */
  arrivalSpreadMs?: number;
  /** How long a pool stays shut after a 429. */
  cooloffMs: number;
  /** What the IP pools are keyed by: processes with the same egress share them (default: the host name). */
  egress?: string;
  /** Share the budget with other processes through Redis. */
  redis?: { url: string; keyPrefix: string };
}

/** Who the limiter charges: the account's digest keys the UID pools (no key: unsigned requests only). */
export interface LimiterIdentity {
  clock: Clock;
  account?: string;
}

export interface BucketPlan {
  burst: number;
  /** Tokens added per windowMs, continuously (not always whole). */
  refill: number;
  windowMs: number;
  /** Most weight any interval of windowMs can see charged: burst + refill. */
  worstCase: number;
  /** Most weight any window of the venue can see arrive, the arrivals spread by up to arrivalSpreadMs: the usable budget. */
  atVenue: number;
}

/**
 * Plans a token bucket that never starts more than `usable` weight in any interval of windowMs + `arrivalSpreadMs`: a
 * window of the venue, which counts arrivals, then sees at most `usable` while the time from charge to arrival varies by
 * no more than that (a request held up on its way and the next one sent promptly arrive closer than they were sent).
 */
export function planBucket(w: WindowBudget, usableFraction: number, maxWeight: number, arrivalSpreadMs = 0): BucketPlan {
  const usable = Math.floor(w.budget * usableFraction);
  const burst = Math.max(maxWeight, Math.ceil(usable / 10));
  // Whole thousandths, rounded down: never above the plan.
  const refill = Math.floor(((usable - burst) * w.windowMs * 1000) / (w.windowMs + arrivalSpreadMs)) / 1000;
  if (refill < 1) {
    throw new RangeError(`a budget of ${w.budget} per ${w.windowMs} ms is too small for requests of weight ${maxWeight}`);
  }
  return { burst, refill, windowMs: w.windowMs, worstCase: burst + refill, atVenue: usable };
}

const PRIORITY: Record<EndpointKind, number> = { cancel: 1, place: 3, read: 6 };
const PRIORITIES = [1, 3, 6] as const;

type Lane = 'writes' | 'reads';

type PoolName = `${Surface}:${'ip' | 'uid' | 'orders' | 'creates'}`;

interface Pool {
  name: PoolName;
  plan: BucketPlan;
  bucket: BucketShape;
  /** Requests of this pool waiting in the queue. */
  queued: number;
}

/**
 * Per surface and lane: the requests that found a pool short, one acquiring at a time, the most urgent first.
 * Writes (order endpoints) and reads wait in lanes of their own, so a placement waiting for the order-rate pool
 * does not hold up reads, which never take from it; a read still gives way to a waiting write short of a pool
 * the read would take from.
 */
interface Queue {
  limiter: Bottleneck;
  /** The buckets the acquiring request found short at its last try (undefined: it has not tried yet). */
  shortOf: ReadonlySet<BucketShape> | undefined;
  /** Who the queue's head is in shared buckets (its claims on tokens it waits for). */
  claimant: string;
  /** Requests in the queue (waiting or acquiring) per priority. */
  count: Record<number, number>;
  /** Wakes the acquiring request early (a more urgent one arrived). */
  wake?: () => void;
}

export interface LimiterStats {
  pool: string;
  reservoir: number | null;
  queued: number;
  plan: BucketPlan;
}

export class RateLimiter {
  private readonly pools = new Map<PoolName, Pool>();
  private readonly queues = {} as Record<Surface, Record<Lane, Queue>>;
  private readonly store: BucketStore;
  /** Per endpoint, the charges of a request (not for order-creating ones while a creation limit applies). */
  private readonly charges = new Map<Endpoint, BucketCharge[]>();
  private readonly account: string;
  private readonly egress: string;
  private closed = false;

  constructor(
    private readonly config: RateLimiterConfig,
    private readonly logger: Logger,
    private readonly identity: LimiterIdentity,
  ) {
    this.account = identity.account ?? 'public';
    this.egress = config.egress ?? hostname();
    this.store = config.redis ? new RedisBuckets(config.redis.url, config.redis.keyPrefix) : new LocalBuckets(identity.clock);
    for (const surface of ['spot', 'futures'] as const) {
      const maxW = maxWeights(surface);
      const budget = config[surface];
      this.addPool(`${surface}:ip`, `ip:${this.egress}:${surface}`, planBucket(budget.ip, config.usableFraction, maxW.ip, config.arrivalSpreadMs));
      this.addPool(`${surface}:uid`, `uid:${this.account}:${surface}`, planBucket(budget.uid, config.usableFraction, maxW.uid, config.arrivalSpreadMs));
      this.addPool(
        `${surface}:orders`,
        `orders:${this.account}:${surface}`,
        planBucket(config.orderRequests, config.usableFraction, 1, config.arrivalSpreadMs),
      );
      const queue = (lane: Lane): Queue => ({
        limiter: new Bottleneck({ maxConcurrent: 1 }),
        shortOf: undefined,
        claimant: `${randomUUID()}:${surface}:${lane}`,
        count: { 1: 0, 3: 0, 6: 0 },
      });
      this.queues[surface] = { writes: queue('writes'), reads: queue('reads') };
    }
  }

  private addPool(name: PoolName, key: string, plan: BucketPlan): void {
    const bucket = { key, capacity: plan.burst, ratePerMs: plan.refill / plan.windowMs };
    this.pools.set(name, { name, plan, bucket, queued: 0 });
    this.charges.clear();
  }

  /**
   * Applies the account's `create_order_rate_limit_per_minute` (F3) to order-creating endpoints; 0 means no
   * such limit. Each order in a batch counts once.
   */
  setOrderCreationLimitPerMinute(surface: Surface, perMinute: number): void {
    const name: PoolName = `${surface}:creates`;
    if (perMinute <= 0) {
      this.pools.delete(name);
      this.charges.clear();
      return;
    }
    const plan = planBucket({ budget: perMinute, windowMs: 60_000 }, 1, 1);
    if (this.pools.get(name)?.plan.worstCase === plan.worstCase) return;
    this.addPool(name, `creates:${this.account}:${surface}`, plan);
  }

  /** The buckets a request of this endpoint takes its weight from, and how much. */
  private chargesFor(endpoint: Endpoint, orders: number): BucketCharge[] {
    const creates = endpoint.createsOrders ? this.pools.get(`${endpoint.surface}:creates`) : undefined;
    let list = this.charges.get(endpoint);
    if (!list) {
      list = chargesOf(endpoint).map((c) => ({ bucket: this.pool(`${endpoint.surface}:${c.kind}`).bucket, weight: c.weight }));
      this.charges.set(endpoint, list);
    }
    if (!creates) return list;
    if (orders > creates.plan.burst) {
      throw new RangeError(
        `${endpoint.id}: a batch of ${orders} orders exceeds the ${creates.plan.burst} the account's order-creation limit lets through at once`,
      );
    }
    return [...list, { bucket: creates.bucket, weight: orders }];
  }

  private pool(name: PoolName): Pool {
    const p = this.pools.get(name);
    if (!p) throw new Error(`no ${name} pool`);
    return p;
  }

  /** Runs `send` once every pool the endpoint draws on has granted its weight. */
  async schedule<T>(endpoint: Endpoint, send: () => Promise<T>, orders = 1): Promise<T> {
    const charges = this.chargesFor(endpoint, orders);
    const priority = PRIORITY[endpoint.kind];
    const lanes = this.queues[endpoint.surface];
    const lane: Lane = endpoint.kind === 'read' ? 'reads' : 'writes';
    if (!this.waitingAsUrgent(lanes[lane], priority, true) && !(lane === 'reads' && this.writeWaitsFor(lanes.writes, charges))) {
      const granted = this.store.charge(charges, { id: '', priority });
      if ((typeof granted === 'number' ? granted : await granted) === 0) return send();
    }
    await this.enqueue(lanes, lane, endpoint.surface, priority, charges);
    return send();
  }

  /** Whether a request in the queue is more urgent than `priority` (or as urgent, with `orEqual`). */
  private waitingAsUrgent(queue: Queue, priority: number, orEqual: boolean): boolean {
    for (const p of PRIORITIES) {
      if (p > priority || (p === priority && !orEqual)) break;
      if (queue.count[p]! > 0) return true;
    }
    return false;
  }

  /**
   * Whether a write is waiting that may need the tokens these charges take: it has not tried yet, or it was short
   * of one of their buckets (a read then leaves it the tokens).
   */
  private writeWaitsFor(writes: Queue, charges: readonly BucketCharge[]): boolean {
    if (writes.count[1]! + writes.count[3]! === 0) return false;
    if (!writes.shortOf) return true;
    for (const c of charges) if (writes.shortOf.has(c.bucket)) return true;
    return false;
  }

  /** Waits in the lane's queue until the charges are granted. */
  private async enqueue(lanes: Record<Lane, Queue>, lane: Lane, surface: Surface, priority: number, charges: readonly BucketCharge[]): Promise<void> {
    const queue = lanes[lane];
    const pools = [...this.pools.values()].filter((p) => p.name.startsWith(`${surface}:`) && charges.some((c) => c.bucket === p.bucket));
    queue.count[priority]!++;
    for (const p of pools) p.queued++;
    // The request acquiring now looks again: it gives way if this one is more urgent.
    queue.wake?.();
    try {
      // A request that gives way to a more urgent one goes back into the queue behind those of its priority.
      while (!(await queue.limiter.schedule({ priority }, () => this.acquire(lanes, lane, priority, charges))));
    } finally {
      queue.count[priority]!--;
      for (const p of pools) p.queued--;
    }
  }

  /** The lane's head: true once charged; false when a more urgent request is waiting and should go first. */
  private async acquire(lanes: Record<Lane, Queue>, lane: Lane, priority: number, charges: readonly BucketCharge[]): Promise<boolean> {
    const queue = lanes[lane];
    try {
      for (;;) {
        if (this.closed) throw new Error('the rate limiter was closed');
        if (this.waitingAsUrgent(queue, priority, false)) return false;
        let waitMs = 1000;
        // A read leaves the tokens to a write waiting for them; it is woken when the write has tried again.
        if (lane === 'writes' || !this.writeWaitsFor(lanes.writes, charges)) {
          const result = await this.store.charge(charges, { id: queue.claimant, priority });
          if (lane === 'writes') lanes.reads.wake?.();
          if (result === 0) return true;
          queue.shortOf = new Set(charges.filter((_, i) => (result.short & (1 << i)) !== 0).map((c) => c.bucket));
          waitMs = result.waitMs;
        }
        // Slept in steps of at most a second: a sleep keeps the process alive, and outlives a wake by no more.
        await Promise.race([this.identity.clock.sleep(Math.min(waitMs, 1000)), new Promise<void>((resolve) => (queue.wake = resolve))]);
        queue.wake = undefined;
      }
    } finally {
      queue.shortOf = undefined;
      if (lane === 'writes') lanes.reads.wake?.();
    }
  }

  /** A 429 was received: shut every pool of the surface for the cool-off. */
  async onRateLimited(surface: Surface): Promise<void> {
    this.logger.warn({ surface, cooloffMs: this.config.cooloffMs }, 'rate limited by the venue: pools shut for the cool-off');
    const buckets = [...this.pools.values()].filter((p) => p.name.startsWith(`${surface}:`)).map((p) => p.bucket);
    await this.store.coolOff(buckets, this.config.cooloffMs);
  }

  async stats(): Promise<LimiterStats[]> {
    const pools = [...this.pools.values()];
    const levels = await this.store.levels(pools.map((p) => p.bucket));
    return pools.map((p, i) => ({ pool: p.name, reservoir: Math.floor(levels[i]!), queued: p.queued, plan: p.plan }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const queues = Object.values(this.queues).flatMap((lanes) => Object.values(lanes));
    await Promise.all(queues.map((q) => q.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined)));
    for (const q of queues) q.wake?.();
    await this.store.close();
  }
}
