// The venue's weight meter, shared by the simulator's HTTP face and the backtest's MeteredClient: each request is
// charged to its endpoint's pools (chargesOf) as the venue counts them, IP pools per client address and UID pools
// (with the order-endpoint cap) per account, in fixed windows aligned to the clock; a request that takes any pool
// over its budget is the venue's 429. Measuring, it also keeps the most weight any interval of a window's length
// saw (sliding: every interval, not only aligned ones), which is what a client-side limiter promises.
import type { Surface } from '../../domain/market.js';
import type { VenueBudget } from '../../domain/venue-budget.js';
import { ENDPOINTS, chargesOf, type Endpoint, type PoolKind, type PoolName } from '../endpoints.js';

/** Who a request counts against: its client address (IP pools) and its account (UID and order pools). */
export interface MeterSubject {
  ip: string;
  uid: string;
}

/** The one client of a backtest: every request is its own. */
const LOCAL: MeterSubject = { ip: 'local', uid: 'local' };

/** One pool's count for one address or account. */
export interface MeterPool {
  readonly name: PoolName;
  /** The client address (IP pools) or account (UID and order pools) counted. */
  readonly by: string;
  readonly windowMs: number;
  readonly limit: number;
  /** Index of the window last charged (time / windowMs, rounded down). */
  windowIndex: number;
  /** Weight charged in that window: it starts again from 0 in the next, so it measures no request's charge. */
  used: number;
  /** Weight charged since the start, every window: never reset, so the change across a request is its charge. */
  spentTotal: number;
  /** The most weight any interval of windowMs saw (measured only when the meter measures; else 0). */
  most: number;
}

/** Arrivals still inside the sliding window of a measured pool, oldest first from `head`. */
interface Arrivals {
  times: number[];
  weights: number[];
  head: number;
  sum: number;
}

/** Every pool any endpoint charges, in the order of the endpoint table (reports list pools in this order). */
const POOL_ORDER: readonly PoolName[] = [...new Set(Object.values(ENDPOINTS).flatMap((e) => chargesOf(e).map((c) => c.pool)))];

type Charges = ReadonlyArray<{ pool: MeterPool; weight: number }>;

export class BudgetMeter {
  /** Pools charged at least once, by name and subject, in the order first charged. */
  private readonly byKey = new Map<string, MeterPool>();
  private readonly arrivals = new Map<MeterPool, Arrivals>();
  /** Per subject, per endpoint: its pools and its weight in each (endpoints are table entries, so identity is the key). */
  private readonly charges = new Map<string, Map<Endpoint, Charges>>();

  constructor(
    private readonly budget: VenueBudget,
    private readonly opts: { measure?: boolean } = {},
  ) {}

  /** Charges one request to the endpoint's pools in the windows of `nowMs`; false when any pool went over (a 429). */
  charge(endpoint: Endpoint, nowMs: number, subject: MeterSubject = LOCAL): boolean {
    return this.chargeAll(this.chargesFor(endpoint, subject), nowMs);
  }

  /** Charges one request with the pools and weights `chargesFor` gave (a caller charging the same endpoint often keeps them). */
  chargeAll(charges: Charges, nowMs: number): boolean {
    let ok = true;
    for (let i = 0; i < charges.length; i++) {
      const { pool, weight } = charges[i]!;
      const windowIndex = Math.floor(nowMs / pool.windowMs);
      if (pool.windowIndex !== windowIndex) {
        pool.windowIndex = windowIndex;
        pool.used = 0;
      }
      pool.used += weight;
      pool.spentTotal += weight;
      if (pool.used > pool.limit) ok = false;
      if (this.opts.measure) this.measure(pool, weight, nowMs);
    }
    return ok;
  }

  /** Adds an arrival to the pool's sliding window [nowMs - windowMs, nowMs] and keeps the most it ever held. */
  private measure(pool: MeterPool, weight: number, nowMs: number): void {
    let a = this.arrivals.get(pool);
    if (!a) this.arrivals.set(pool, (a = { times: [], weights: [], head: 0, sum: 0 }));
    a.times.push(nowMs);
    a.weights.push(weight);
    a.sum += weight;
    while (nowMs - a.times[a.head]! >= pool.windowMs) a.sum -= a.weights[a.head++]!;
    if (a.sum > pool.most) pool.most = a.sum;
    if (a.head > 1024 && a.head * 2 > a.times.length) {
      a.times.splice(0, a.head);
      a.weights.splice(0, a.head);
      a.head = 0;
    }
  }

  /** The pools charged so far, in the order first charged. */
  pools(): readonly MeterPool[] {
    return [...this.byKey.values()];
  }

  /** Weight charged since the start per pool that was charged any (every address and account), in the endpoint table's pool order. */
  spentByPool(): Record<string, number> {
    const spent = new Map<PoolName, number>();
    for (const p of this.byKey.values()) spent.set(p.name, (spent.get(p.name) ?? 0) + p.spentTotal);
    const out: Record<string, number> = {};
    for (const name of POOL_ORDER) {
      const s = spent.get(name) ?? 0;
      if (s > 0) out[name] = s;
    }
    return out;
  }

  /** The pools an endpoint charges for `subject` and its weight in each, worked out once per endpoint and subject. */
  chargesFor(endpoint: Endpoint, subject: MeterSubject = LOCAL): Charges {
    const who = `${subject.ip}\n${subject.uid}`;
    let bySubject = this.charges.get(who);
    if (!bySubject) this.charges.set(who, (bySubject = new Map<Endpoint, Charges>()));
    let list = bySubject.get(endpoint);
    if (!list) {
      list = chargesOf(endpoint).map((c) => ({
        pool: this.pool(c.pool, endpoint.surface, c.kind, c.kind === 'ip' ? subject.ip : subject.uid),
        weight: c.weight,
      }));
      bySubject.set(endpoint, list);
    }
    return list;
  }

  private pool(name: PoolName, surface: Surface, kind: PoolKind, by: string): MeterPool {
    const key = `${name}@${by}`;
    let pool = this.byKey.get(key);
    if (!pool) {
      const [windowMs, limit] = kind === 'orders' ? [1000, this.budget.orderRequestsPerSecond] : [this.budget.windowMs, this.budget[surface][kind]];
      pool = { name, by, windowMs, limit, windowIndex: Number.NaN, used: 0, spentTotal: 0, most: 0 };
      this.byKey.set(key, pool);
    }
    return pool;
  }
}
