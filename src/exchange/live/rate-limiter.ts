// Request pacing with bottleneck: per surface an IP pool and a UID pool charged with each endpoint's weights,
// the 10 requests/s cap on order endpoints, the account's order-creation rate, priorities and 429 cool-offs.
//
// Invariant: in ANY interval of one window's length (not only in windows aligned with ours) the weight started
// stays within the budget. Fixed-window reservoirs cannot promise that (2x the budget across a boundary), so every
// pool is a token bucket: at most `burst` tokens banked, `amount` added every `intervalMs`; the worst case in any
// interval of `windowMs` is burst + amount * ceil(windowMs / intervalMs). A request takes its pools one after
// another (order-creation, order rate, UID, then IP) inside a per-surface gate that lets one request acquire at a
// time, in priority order: tokens taken from an outer pool while waiting for an inner one are never more than one
// request's weight per process, and the budget reserves that (`held`, sized for two processes).
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import type { Surface } from '../../domain/market.js';
import type { Logger } from '../../util/logger.js';
import { chargesOf, maxWeights, type Endpoint, type EndpointKind, type PoolKind } from '../endpoints.js';

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
  /** The venue's cap on order endpoints (place, cancel, trigger place/cancel), per surface. */
  orderRequests: WindowBudget;
  /** Share of each budget the limiter plans to use (headroom for latency jitter and other tools on the key). */
  usableFraction: number;
  /** How long a pool stays shut after a 429. */
  cooloffMs: number;
  /** Share the budget with other processes through Redis. */
  redis?: { url: string; keyPrefix: string };
}

export interface BucketPlan {
  burst: number;
  amount: number;
  intervalMs: number;
  /** Weight that may be held while waiting on an inner pool (outer pools only). */
  held: number;
  /** Most weight any interval of windowMs can see: burst + amount * ceil(windowMs / intervalMs) + held. */
  worstCase: number;
}

/** Plans a token bucket that never starts more than `usable` weight in any interval of windowMs. */
export function planBucket(w: WindowBudget, usableFraction: number, maxWeight: number, held: number): BucketPlan {
  const usable = Math.floor(w.budget * usableFraction) - held;
  const burst = Math.max(maxWeight, Math.ceil(usable / 10));
  const refill = usable - burst;
  if (refill < 1) {
    throw new RangeError(`a budget of ${w.budget} per ${w.windowMs} ms is too small for requests of weight ${maxWeight}`);
  }
  // At most 100 refills per window, each as small as that allows.
  const amount = Math.ceil(refill / 100);
  const steps = Math.floor(refill / amount);
  const intervalMs = Math.ceil(w.windowMs / steps);
  const worstCase = burst + amount * Math.ceil(w.windowMs / intervalMs) + held;
  return { burst, amount, intervalMs, held, worstCase };
}

const PRIORITY: Record<EndpointKind, number> = { cancel: 1, place: 3, read: 6 };

type PoolName = PoolKind | 'creates';

/** The order a request takes its endpoint's pools in, innermost last (see the invariant above). */
const TAKE_ORDER: Record<PoolKind, number> = { orders: 0, uid: 1, ip: 2 };

class Pool {
  readonly limiter: Bottleneck;
  constructor(
    readonly name: string,
    readonly plan: BucketPlan,
    readonly windowMs: number,
    redis: RateLimiterConfig['redis'],
  ) {
    // Locally each heartbeat adds at most one refill, so it beats faster than the refill interval. The Redis
    // scripts add every refill due since the last one, so a slower beat (fewer round trips) loses nothing.
    const heartbeatInterval = redis ? Math.max(50, plan.intervalMs) : Math.max(5, Math.floor(plan.intervalMs / 4));
    const base: Bottleneck.ConstructorOptions = {
      id: redis ? `${redis.keyPrefix}:${name}` : name,
      reservoir: plan.burst,
      reservoirIncreaseAmount: plan.amount,
      reservoirIncreaseInterval: plan.intervalMs,
      reservoirIncreaseMaximum: plan.burst,
      maxConcurrent: null,
      heartbeatInterval,
    };
    if (redis) {
      const u = new URL(redis.url);
      this.limiter = new Bottleneck({
        ...base,
        datastore: 'ioredis',
        clearDatastore: false,
        timeout: Math.max(60_000, windowMs * 6),
        clientOptions: {
          host: u.hostname,
          port: u.port ? Number(u.port) : 6379,
          ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
          ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
          lazyConnect: false,
          maxRetriesPerRequest: 2,
        },
        Redis,
      });
    } else {
      this.limiter = new Bottleneck(base);
    }
  }

  /**
   * Shuts the pool for cooloffMs: the reservoir goes negative by what refills in that time, so it heals itself
   * (in every process sharing it). incrementReservoir, not updateSettings: in bottleneck 2.19.5 updateSettings
   * stops the local refill heartbeat for good.
   */
  async coolOff(cooloffMs: number): Promise<void> {
    const debt = Math.ceil(cooloffMs / this.plan.intervalMs) * this.plan.amount;
    const current = (await this.limiter.currentReservoir()) ?? 0;
    const incr = Math.min(0, -debt - current);
    if (incr < 0) await this.limiter.incrementReservoir(incr);
  }

  async close(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    await this.limiter.disconnect().catch(() => undefined);
  }
}

export interface LimiterStats {
  pool: string;
  reservoir: number | null;
  queued: number;
  plan: BucketPlan;
}

export class RateLimiter {
  private readonly pools = new Map<string, Pool>();
  /** One request at a time takes its pools, highest priority first (local to this process). */
  private readonly gates = {} as Record<Surface, Bottleneck>;

  constructor(
    private readonly config: RateLimiterConfig,
    private readonly logger: Logger,
  ) {
    for (const surface of ['spot', 'futures'] as const) {
      const maxW = maxWeights(surface);
      const budget = config[surface];
      this.addPool(surface, 'ip', planBucket(budget.ip, config.usableFraction, maxW.ip, 0), budget.ip.windowMs);
      this.addPool(surface, 'uid', planBucket(budget.uid, config.usableFraction, maxW.uid, 2 * maxW.uid), budget.uid.windowMs);
      this.addPool(surface, 'orders', planBucket(config.orderRequests, 1, 1, 2), config.orderRequests.windowMs);
      this.gates[surface] = new Bottleneck({ maxConcurrent: 1 });
    }
  }

  private addPool(surface: Surface, name: PoolName, plan: BucketPlan, windowMs: number): void {
    const key = `${surface}:${name}`;
    const old = this.pools.get(key);
    if (old) void old.close();
    this.pools.set(key, new Pool(key, plan, windowMs, this.config.redis));
  }

  /**
   * Applies the account's `create_order_rate_limit_per_minute` (F3) to order-creating endpoints; 0 means no
   * such limit. Each order in a batch counts once.
   */
  setOrderCreationLimitPerMinute(surface: Surface, perMinute: number): void {
    const key = `${surface}:creates`;
    if (perMinute <= 0) {
      const old = this.pools.get(key);
      this.pools.delete(key);
      if (old) void old.close();
      return;
    }
    // A tenth of the budget may be held while a request waits for the inner pools.
    const held = Math.max(1, Math.floor(perMinute / 10));
    this.addPool(surface, 'creates', planBucket({ budget: perMinute, windowMs: 60_000 }, 1, 1, held), 60_000);
  }

  /** The pools a request of this endpoint takes, outermost first. */
  private poolsFor(endpoint: Endpoint, orders: number): Array<{ pool: Pool; weight: number }> {
    const surface = endpoint.surface;
    const out: Array<{ pool: Pool; weight: number }> = [];
    const creates = this.pools.get(`${surface}:creates`);
    if (creates && endpoint.createsOrders) {
      const most = Math.min(creates.plan.burst, creates.plan.held);
      if (orders > most) {
        throw new RangeError(`${endpoint.id}: a batch of ${orders} orders exceeds the ${most} the account's order-creation limit lets through at once`);
      }
      out.push({ pool: creates, weight: orders });
    }
    const charges = chargesOf(endpoint).sort((a, b) => TAKE_ORDER[a.kind] - TAKE_ORDER[b.kind]);
    for (const c of charges) out.push({ pool: this.pool(surface, c.kind), weight: c.weight });
    return out;
  }

  private pool(surface: Surface, name: PoolName): Pool {
    const p = this.pools.get(`${surface}:${name}`);
    if (!p) throw new Error(`no ${name} pool for ${surface}`);
    return p;
  }

  /** Runs `send` once every pool the endpoint draws on has granted its weight. */
  async schedule<T>(endpoint: Endpoint, send: () => Promise<T>, orders = 1): Promise<T> {
    const chain = this.poolsFor(endpoint, orders);
    const priority = PRIORITY[endpoint.kind];
    await this.gates[endpoint.surface].schedule({ priority }, async () => {
      for (const { pool, weight } of chain) await pool.limiter.schedule({ priority, weight }, async () => undefined);
    });
    return send();
  }

  /** A 429 was received: shut every pool of the surface for the cool-off. */
  async onRateLimited(surface: Surface): Promise<void> {
    this.logger.warn({ surface, cooloffMs: this.config.cooloffMs }, 'rate limited by the venue: pools shut for the cool-off');
    await Promise.all(
      [...this.pools.entries()].filter(([k]) => k.startsWith(`${surface}:`)).map(([, p]) => p.coolOff(this.config.cooloffMs)),
    );
  }

  async stats(): Promise<LimiterStats[]> {
    const out: LimiterStats[] = [];
    for (const [name, p] of this.pools) {
      out.push({ pool: name, reservoir: await p.limiter.currentReservoir(), queued: p.limiter.queued(), plan: p.plan });
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.all([
      ...Object.values(this.gates).map((g) => g.stop({ dropWaitingJobs: true }).catch(() => undefined).then(() => g.disconnect())),
      ...[...this.pools.values()].map((p) => p.close()),
    ]);
    this.pools.clear();
  }
}
