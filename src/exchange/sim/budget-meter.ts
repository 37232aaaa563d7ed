// The venue's weight meter, shared by the simulator's HTTP face and the backtest's MeteredClient: each request is
// charged to its endpoint's pools (chargesOf) in fixed windows aligned to the clock, as the venue counts, and a
// request that takes any pool over its budget is the venue's 429.
import type { Surface } from '../../domain/market.js';
import type { VenueBudget } from '../../domain/venue-budget.js';
import { ENDPOINTS, chargesOf, type Endpoint, type PoolKind, type PoolName } from '../endpoints.js';

/** One pool's count: the window it is in and the weight used there, and the weight charged since the start. */
export interface MeterPool {
  readonly name: PoolName;
  readonly windowMs: number;
  readonly limit: number;
  /** Index of the current window (time / windowMs, rounded down). */
  windowIndex: number;
  used: number;
  spentTotal: number;
}

/** Every pool any endpoint charges, in the order of the endpoint table (reports list pools in this order). */
const POOL_ORDER: readonly PoolName[] = [...new Set(Object.values(ENDPOINTS).flatMap((e) => chargesOf(e).map((c) => c.pool)))];

export class BudgetMeter {
  /** Pools charged at least once, in the order first charged. */
  private readonly byName = new Map<PoolName, MeterPool>();
  /** Per endpoint: its pools and its weight in each (endpoints are table entries, so identity is the key). */
  private readonly charges = new Map<Endpoint, Array<{ pool: MeterPool; weight: number }>>();

  constructor(private readonly budget: VenueBudget) {}

  /** Charges one request to the endpoint's pools in the windows of `nowMs`; false when any pool went over (a 429). */
  charge(endpoint: Endpoint, nowMs: number): boolean {
    return this.chargeAll(this.chargesFor(endpoint), nowMs);
  }

  /** Charges one request with the pools and weights `chargesFor` gave (a caller charging the same endpoint often keeps them). */
  chargeAll(charges: ReadonlyArray<{ pool: MeterPool; weight: number }>, nowMs: number): boolean {
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
    }
    return ok;
  }

  /** The pools charged so far, in the order first charged. */
  pools(): readonly MeterPool[] {
    return [...this.byName.values()];
  }

  /** Weight charged since the start per pool that was charged any, in the endpoint table's pool order. */
  spentByPool(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const name of POOL_ORDER) {
      const spent = this.byName.get(name)?.spentTotal ?? 0;
      if (spent > 0) out[name] = spent;
    }
    return out;
  }

  /** The pools an endpoint charges and its weight in each, worked out once per endpoint. */
  chargesFor(endpoint: Endpoint): ReadonlyArray<{ pool: MeterPool; weight: number }> {
    let list = this.charges.get(endpoint);
    if (!list) {
      list = chargesOf(endpoint).map((c) => ({ pool: this.pool(c.pool, endpoint.surface, c.kind), weight: c.weight }));
      this.charges.set(endpoint, list);
    }
    return list;
  }

  private pool(name: PoolName, surface: Surface, kind: PoolKind): MeterPool {
    let pool = this.byName.get(name);
    if (!pool) {
      const [windowMs, limit] = kind === 'orders' ? [1000, this.budget.orderRequestsPerSecond] : [this.budget.windowMs, this.budget[surface][kind]];
      pool = { name, windowMs, limit, windowIndex: Number.NaN, used: 0, spentTotal: 0 };
      this.byName.set(name, pool);
    }
    return pool;
  }
}
