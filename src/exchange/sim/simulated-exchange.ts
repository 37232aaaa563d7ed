// Face 1 of the simulator: an in-process ExchangeClient over the matching engine, in virtual time (backtests;
// dry-run through the paper venue). No sockets, no serialisation; answers shaped exactly as the live client's
// normalised ones.
import type { Balance, Fill, Instrument, Position, PublicTrade, Surface, Ticker } from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
import { ManualClock } from '../../util/clock.js';
import type { CancelTarget, ExchangeClient, ItemResult, OrderLookup, OrderRequest, TriggerOrderRequest } from '../client.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import { ExchangeError, classifyItemError } from '../errors.js';
import { MatchingEngine, type CancelOutcome, type PlaceOutcome, type SimAccounts } from './engine.js';
import type { MarketSource, SymbolMarket } from './market.js';

function placeResult(endpoint: EndpointId, r: PlaceOutcome, clientOid: string): ItemResult {
  return r.ok ? { outcome: 'accepted', clientOid, orderId: r.orderId } : { outcome: 'rejected', clientOid, orderId: null, error: classifyItemError(endpoint, r.refusal.code, r.refusal.message) };
}

function cancelResult(endpoint: EndpointId, r: CancelOutcome): ItemResult {
  if (r.ok) return { outcome: 'accepted', clientOid: r.clientOid, orderId: r.orderId };
  return { outcome: 'rejected', clientOid: r.clientOid, orderId: r.orderId, error: classifyItemError(endpoint, r.refusal.code, r.refusal.message) };
}

export class SimulatedExchange implements ExchangeClient {
  readonly engine: MatchingEngine;
  readonly clock: ManualClock;

  constructor(
    readonly market: MarketSource,
    accounts: SimAccounts,
    /** Final orders and fills kept per symbol (history reads); unlimited by default. */
    retain?: number,
    /** Virtual time, when the caller drives it (backtests); otherwise the simulator's own. */
    clock?: ManualClock,
  ) {
    this.clock = clock ?? new ManualClock(market.now);
    this.engine = new MatchingEngine(market.symbols, accounts, this.clock, retain);
  }

  private readonly onTick = (market: SymbolMarket): void => {
    this.clock.set(market.ts);
    this.engine.onTick(market);
  };

  /** Moves virtual time forward, applying every market tick up to `timeMs`. */
  advanceTo(timeMs: number): void {
    this.market.advanceTo(timeMs, this.onTick);
    this.clock.set(Math.max(this.clock.now(), timeMs));
  }

  async instruments(surface: Surface): Promise<Instrument[]> {
    return this.engine.instruments(surface);
  }

  async tickers(): Promise<Ticker[]> {
    return this.engine.tickers('futures');
  }

  async recentTrades(symbol: string, limit = 100): Promise<PublicTrade[]> {
    return this.engine.trades(symbol, limit).map((t) => ({ symbol, tradeId: t.tradeId, timestampMs: t.ts, price: t.price, size: t.size, buyerMaker: t.buyerMaker }));
  }

  async openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    return this.openOrdersNow(surface, symbol);
  }

  async order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    if (!lookup.orderId && !lookup.clientOid) throw new RangeError('an order id or a client id is required');
    // Any state, as S3 / F18 / F19 find it.
    const found = this.engine.findOrder(surface === 'spot' ? undefined : symbol, lookup);
    if (!found || found.surface !== surface) return null;
    return this.engine.toOrder(found);
  }

  async fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]> {
    if (this.engine.instrument(symbol)?.surface !== surface) return [];
    const all = this.engine.fills(symbol, orderId);
    // Spot reads one S2 page; futures pages through F20 until the venue has no more.
    return surface === 'spot' ? all.slice(0, ENDPOINTS.S2.maxPageSize) : all;
  }

  async positions(symbol: string): Promise<Position[]> {
    return this.engine.positions(symbol);
  }

  async balances(surface: Surface): Promise<Balance[]> {
    return this.balancesNow(surface);
  }

  // Synchronous reads of the same answers, for a driver that reads at an instant of virtual time (backtests).

  openOrdersNow(surface: Surface, symbol?: string): Order[] {
    if (surface === 'spot' && !symbol) throw new RangeError('spot open orders are read per pair: a symbol is required');
    return this.engine.openOrders(surface, symbol).map((order) => this.engine.toOrder(order));
  }

  balancesNow(surface: Surface): Balance[] {
    if (surface === 'spot') return this.engine.spotBalances();
    return [{ surface: 'futures', asset: 'USDT', available: null, frozen: null, total: this.engine.futuresCollateral() }];
  }

  positionsNow(symbol: string): Position[] {
    return this.engine.positions(symbol);
  }

  /** A futures contract's ticker (F2), or a spot pair's latest trade as a ticker (S9), as the daemon reads them. */
  tickerNow(symbol: string): Ticker | undefined {
    return this.engine.ticker(symbol, this.engine.instrument(symbol)?.surface === 'spot');
  }

  async placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]> {
    const endpoint = surface === 'spot' ? 'S6' : 'F6';
    const max = ENDPOINTS[endpoint].maxBatch!;
    if (orders.length === 0 || orders.length > max) {
      const err = new ExchangeError('bad-request', `rejected before sending: ${orders.length} items, 1 to ${max} per request`, { endpoint, sent: false });
      return orders.map((order) => ({ outcome: 'rejected', clientOid: order.clientOid, orderId: null, error: err }));
    }
    return this.engine.place(surface, symbol, orders).map((r, i) => placeResult(endpoint, r, orders[i]!.clientOid));
  }

  async cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    const endpoint = surface === 'spot' ? 'S4' : 'F7';
    return this.engine.cancel(surface, symbol, target).map((r) => cancelResult(endpoint, r));
  }

  async cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]> {
    return this.engine.cancelAll(surface, symbol).map((r) => cancelResult(surface === 'spot' ? 'S5' : 'F7', r));
  }

  async placeTrigger(req: TriggerOrderRequest): Promise<ItemResult> {
    return placeResult('F8', this.engine.placeTrigger(req), req.clientOid);
  }

  async cancelTrigger(symbol: string, orderId: string): Promise<ItemResult> {
    return cancelResult('F9', this.engine.cancelTrigger(symbol, orderId));
  }

  async close(): Promise<void> {
    /* nothing held */
  }
}
