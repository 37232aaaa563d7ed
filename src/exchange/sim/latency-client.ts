// An ExchangeClient wrapper that puts network time between the caller and the venue: every request reaches
// the venue one way later and its answer comes back one way after that, in whatever time `sleep` measures
// (virtual time in backtests). Orders therefore meet the market as it is when they arrive, not when sent.
import type { Balance, Fill, Instrument, Position, PublicTrade, Surface, Ticker } from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderLookup, OrderRequest, TriggerOrderRequest } from '../client.js';

export class LatencyClient implements ExchangeClient {
  constructor(
    private readonly inner: ExchangeClient,
    /** Time to the venue and back. */
    private readonly outMs: number,
    private readonly backMs: number,
    private readonly sleep: (ms: number) => Promise<void>,
  ) {}

  private async call<T>(request: () => Promise<T>): Promise<T> {
    await this.sleep(this.outMs);
    let out: T;
    try {
      out = await request();
    } catch (err) {
      await this.sleep(this.backMs);
      throw err;
    }
    await this.sleep(this.backMs);
    return out;
  }

  instruments(surface: Surface): Promise<Instrument[]> {
    return this.call(() => this.inner.instruments(surface));
  }
  tickers(): Promise<Ticker[]> {
    return this.call(() => this.inner.tickers());
  }
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    return this.call(() => this.inner.recentTrades(symbol, limit));
  }
  openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    return this.call(() => this.inner.openOrders(surface, symbol));
  }
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    return this.call(() => this.inner.order(surface, symbol, lookup));
  }
  fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]> {
    return this.call(() => this.inner.fills(surface, symbol, orderId));
  }
  positions(symbol: string): Promise<Position[]> {
    return this.call(() => this.inner.positions(symbol));
  }
  balances(surface: Surface): Promise<Balance[]> {
    return this.call(() => this.inner.balances(surface));
  }
  placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]> {
    return this.call(() => this.inner.placeOrders(surface, symbol, orders));
  }
  cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    return this.call(() => this.inner.cancelOrders(surface, symbol, target));
  }
  cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]> {
    return this.call(() => this.inner.cancelAll(surface, symbol));
  }
  placeTrigger(req: TriggerOrderRequest): Promise<ItemResult> {
    return this.call(() => this.inner.placeTrigger(req));
  }
  cancelTrigger(symbol: string, orderId: string): Promise<ItemResult> {
    return this.call(() => this.inner.cancelTrigger(symbol, orderId));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
