// An ExchangeClient wrapper that charges every call the weights of the endpoints it stands for, in fixed
// windows of (virtual) time as the venue counts, and refuses what goes over with the venue's 429 — so a
// strategy that would exceed the budget live also does in a backtest.
import type { Balance, Fill, Instrument, Position, PublicTrade, Surface, Ticker } from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
import type { Clock } from '../../util/clock.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderLookup, OrderRequest, TriggerOrderRequest } from '../client.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import { classifyVenueError } from '../errors.js';

export interface MeterBudget {
  spot: { ip: number; uid: number };
  futures: { ip: number; uid: number };
  windowMs: number;
  orderRequestsPerSecond: number;
}

export interface MeterStats {
  requests: number;
  weight: Record<string, number>;
  rateLimited: number;
}

interface Pool {
  name: string;
  windowMs: number;
  limit: number;
  window: number;
  used: number;
  /** Weight charged since the start. */
  spent: number;
}

export class MeteredClient implements ExchangeClient {
  private readonly pools: Pool[] = [];
  /** Per endpoint: the pools it is charged to and its weight in each (pool, weight, pool, weight...). */
  private readonly charges = new Map<EndpointId, Array<Pool | number>>();
  private requests = 0;
  private rateLimited = 0;

  constructor(
    private readonly inner: ExchangeClient,
    budget: MeterBudget,
    private readonly clock: Clock,
    /** The endpoint spot open orders are read from, as the live client is configured (S15 by default). */
    private readonly spotOpenOrders: 'S15' | 'S1' = 'S15',
  ) {
    const pool = (name: string, windowMs: number, limit: number): Pool => {
      let p = this.pools.find((x) => x.name === name);
      if (!p) this.pools.push((p = { name, windowMs, limit, window: -1, used: 0, spent: 0 }));
      return p;
    };
    for (const [id, e] of Object.entries(ENDPOINTS) as Array<[EndpointId, (typeof ENDPOINTS)[EndpointId]]>) {
      const c: Array<Pool | number> = [pool(`${e.surface}:ip`, budget.windowMs, budget[e.surface].ip), e.weight.ip];
      if (e.auth && e.weight.uid) c.push(pool(`${e.surface}:uid`, budget.windowMs, budget[e.surface].uid), e.weight.uid);
      if (e.orderRateLimited) c.push(pool(`${e.surface}:orders`, 1000, budget.orderRequestsPerSecond), 1);
      this.charges.set(id, c);
    }
  }

  get stats(): MeterStats {
    const weight: Record<string, number> = {};
    for (const p of this.pools) if (p.spent > 0) weight[p.name] = p.spent;
    return { requests: this.requests, weight, rateLimited: this.rateLimited };
  }

  /**
   * Charges one request to `id`'s pools in the window of now; false when a pool is over its budget (the venue
   * answers 429). Reads made at an instant of virtual time (backtests) are charged here too.
   */
  admit(id: EndpointId): boolean {
    const now = this.clock.now();
    const c = this.charges.get(id)!;
    this.requests++;
    let ok = true;
    for (let i = 0; i < c.length; i += 2) {
      const p = c[i] as Pool;
      const w = c[i + 1] as number;
      const win = Math.floor(now / p.windowMs);
      if (p.window !== win) {
        p.window = win;
        p.used = 0;
      }
      p.used += w;
      p.spent += w;
      if (p.used > p.limit) ok = false;
    }
    if (!ok) this.rateLimited++;
    return ok;
  }

  private read<T>(id: EndpointId, f: () => Promise<T>): Promise<T> {
    if (!this.admit(id)) return Promise.reject(classifyVenueError(id, 429, '429', 'Too many requests'));
    return f();
  }

  private write(id: EndpointId, items: Array<{ clientOid: string | null; orderId: string | null }>, f: () => Promise<ItemResult[]>): Promise<ItemResult[]> {
    if (this.admit(id)) return f();
    const error = classifyVenueError(id, 429, '429', 'Too many requests');
    return Promise.resolve(items.map((i) => ({ outcome: 'rejected', ...i, error })));
  }

  instruments(surface: Surface): Promise<Instrument[]> {
    return this.read(surface === 'spot' ? 'S7' : 'F1', () => this.inner.instruments(surface));
  }
  tickers(): Promise<Ticker[]> {
    return this.read('F2', () => this.inner.tickers());
  }
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    return this.read('S9', () => this.inner.recentTrades(symbol, limit));
  }
  openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    return this.read(surface === 'spot' ? this.spotOpenOrders : 'F5', () => this.inner.openOrders(surface, symbol));
  }
  /** Futures: F18 by order id; by client id F5, and F19 too when the order is not among the open ones. */
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    if (surface === 'spot') return this.read('S3', () => this.inner.order(surface, symbol, lookup));
    if (lookup.orderId) return this.read('F18', () => this.inner.order(surface, symbol, lookup));
    return this.read('F5', async () => {
      const o = await this.inner.order(surface, symbol, lookup);
      if (o && o.status !== 'filled' && o.status !== 'canceled') return o;
      return this.read('F19', async () => o);
    });
  }
  fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]> {
    return this.read(surface === 'spot' ? 'S2' : 'F20', () => this.inner.fills(surface, symbol, orderId));
  }
  positions(symbol: string): Promise<Position[]> {
    return this.read('F4', () => this.inner.positions(symbol));
  }
  balances(surface: Surface): Promise<Balance[]> {
    return this.read(surface === 'spot' ? 'S8' : 'F3', () => this.inner.balances(surface));
  }
  placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]> {
    return this.write(surface === 'spot' ? 'S6' : 'F6', orders.map((o) => ({ clientOid: o.clientOid, orderId: null })), () => this.inner.placeOrders(surface, symbol, orders));
  }
  cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    const items = target.orderIds ? target.orderIds.map((orderId) => ({ clientOid: null, orderId })) : (target.clientOids ?? []).map((clientOid) => ({ clientOid, orderId: null }));
    return this.write(surface === 'spot' ? 'S4' : 'F7', items, () => this.inner.cancelOrders(surface, symbol, target));
  }
  cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]> {
    return this.write(surface === 'spot' ? 'S5' : 'F7', [{ clientOid: null, orderId: null }], () => this.inner.cancelAll(surface, symbol));
  }
  async placeTrigger(req: TriggerOrderRequest): Promise<ItemResult> {
    return (await this.write('F8', [{ clientOid: req.clientOid, orderId: null }], async () => [await this.inner.placeTrigger(req)]))[0]!;
  }
  async cancelTrigger(symbol: string, orderId: string): Promise<ItemResult> {
    return (await this.write('F9', [{ clientOid: null, orderId }], async () => [await this.inner.cancelTrigger(symbol, orderId)]))[0]!;
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
