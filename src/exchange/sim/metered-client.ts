// An ExchangeClient wrapper that charges every call the weights of the endpoints it stands for on the venue's
// meter (the simulator's own: fixed windows of virtual time), and refuses what goes over with the venue's 429 —
// so a strategy that would exceed the budget live also does in a backtest.
import type { CandlePriceType, Timeframe, VenueCandle } from '../../domain/candles.js';
import {
  surfaceOfSymbol,
  type Balance,
  type Fill,
  type FundingRate,
  type FundingSettlement,
  type Instrument,
  type LedgerEntry,
  type OrderBook,
  type Position,
  type PriceIndex,
  type PublicTrade,
  type Surface,
  type Ticker,
} from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
import type { VenueBudget } from '../../domain/venue-budget.js';
import type { Clock } from '../../util/clock.js';
import type {
  CancelTarget,
  CandleWindow,
  ExchangeClient,
  ItemResult,
  LedgerQuery,
  OrderLookup,
  OrderRequest,
  PositionCloseResult,
  TpSlChange,
  TpSlRequest,
  TriggerHistoryQuery,
  TriggerOrder,
  TriggerOrderRequest,
} from '../client.js';
import { ENDPOINTS, type EndpointId } from '../endpoints.js';
import { classifyVenueError } from '../errors.js';
import { candleEndpoint, checkRequest } from '../request-checks.js';
import type { RequestOf } from '../wire/requests.js';
import { BudgetMeter } from './budget-meter.js';

/** The items of a write, as a refusal of the whole request answers them. */
type WriteItems = Array<{ clientOid: string | null; orderId: string | null }>;

export interface MeterStats {
  requests: number;
  /** Weight charged since the start, per pool that was charged any. */
  weight: Record<string, number>;
  rateLimited: number;
}

export class MeteredClient implements ExchangeClient {
  private readonly meter: BudgetMeter;
  private requests = 0;
  private rateLimited = 0;

  constructor(
    private readonly inner: ExchangeClient,
    budget: VenueBudget,
    private readonly clock: Clock,
    /** The endpoint spot open orders are read from, as the live client is configured (S15 by default). */
    private readonly spotOpenOrders: 'S15' | 'S1' = 'S15',
  ) {
    this.meter = new BudgetMeter(budget);
  }

  get stats(): MeterStats {
    return { requests: this.requests, weight: this.meter.spentByPool(), rateLimited: this.rateLimited };
  }

  /**
   * Charges one request to `id`'s pools in the window of now; false when a pool is over its budget (the venue
   * answers 429). Reads made at an instant of virtual time (backtests) are charged here too.
   */
  admit(id: EndpointId): boolean {
    this.requests++;
    const ok = this.meter.charge(ENDPOINTS[id], this.clock.now());
    if (!ok) this.rateLimited++;
    return ok;
  }

  /**
   * admit() for each of `ids` in turn, worked out once: what a poll that sends the same requests every cycle calls.
   * True when every one was admitted.
   */
  admitter(ids: readonly EndpointId[]): () => boolean {
    const charges = ids.map((id) => this.meter.chargesFor(ENDPOINTS[id]));
    return () => {
      const nowMs = this.clock.now();
      let ok = true;
      for (let i = 0; i < charges.length; i++) {
        this.requests++;
        if (this.meter.chargeAll(charges[i]!, nowMs)) continue;
        this.rateLimited++;
        ok = false;
      }
      return ok;
    };
  }

  private read<T>(id: EndpointId, call: () => Promise<T>): Promise<T> {
    if (!this.admit(id)) return Promise.reject(classifyVenueError(id, 429, '429', 'Too many requests'));
    return call();
  }

  /** A read the live client refuses before sending (`check` throws) is not charged: it never reaches the venue. */
  private checkedRead<T>(check: () => EndpointId, call: () => Promise<T>): Promise<T> {
    let id: EndpointId;
    try {
      id = check();
    } catch (err) {
      return Promise.reject(err);
    }
    return this.read(id, call);
  }

  /** `id` once its request passes the checks made before sending. */
  private checked<E extends EndpointId>(id: E, params: RequestOf<E>): E {
    checkRequest(id, params);
    return id;
  }

  /** A write over the budget is refused whole: every item rejected with the venue's 429 (`items` worked out only then). */
  private write(id: EndpointId, items: WriteItems | (() => WriteItems), call: () => Promise<ItemResult[]>): Promise<ItemResult[]> {
    if (this.admit(id)) return call();
    const error = classifyVenueError(id, 429, '429', 'Too many requests');
    return Promise.resolve((typeof items === 'function' ? items() : items).map((item) => ({ outcome: 'rejected', ...item, error })));
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
  ticker(symbol: string): Promise<Ticker> {
    return this.read(surfaceOfSymbol(symbol) === 'spot' ? 'S11' : 'F12', () => this.inner.ticker(symbol));
  }
  depth(symbol: string, limit?: 15 | 200): Promise<OrderBook> {
    const id = surfaceOfSymbol(symbol) === 'spot' ? 'S13' : 'F13';
    return this.checkedRead(
      () => this.checked(id, { symbol, ...(limit !== undefined ? { limit } : {}) }),
      () => this.inner.depth(symbol, limit),
    );
  }
  candles(symbol: string, timeframe: Timeframe, opts?: { limit?: number; priceType?: CandlePriceType }): Promise<VenueCandle[]> {
    return this.checkedRead(
      () =>
        this.checked(candleEndpoint(surfaceOfSymbol(symbol), symbol, timeframe, false, opts?.priceType), {
          symbol,
          period: timeframe,
          granularity: timeframe,
          ...(opts?.limit !== undefined ? { limit: opts.limit } : {}),
        }),
      () => this.inner.candles(symbol, timeframe, opts),
    );
  }
  historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    return this.checkedRead(
      () => {
        candleEndpoint(surfaceOfSymbol(symbol), symbol, timeframe, true, window.priceType);
        return this.checked('F11', {
          symbol,
          granularity: timeframe,
          startTime: window.startMs,
          endTime: window.endMs,
          ...(window.limit !== undefined ? { limit: window.limit } : {}),
        });
      },
      () => this.inner.historyCandles(symbol, timeframe, window),
    );
  }
  fundingRates(symbol?: string): Promise<FundingRate[]> {
    return this.read('F14', () => this.inner.fundingRates(symbol));
  }
  nextFundingTime(symbol: string): Promise<number> {
    return this.read('F15', () => this.inner.nextFundingTime(symbol));
  }
  fundingHistory(symbol: string, limit?: number): Promise<FundingSettlement[]> {
    return this.checkedRead(
      () => this.checked('F16', { symbol, ...(limit !== undefined ? { limit } : {}) }),
      () => this.inner.fundingHistory(symbol, limit),
    );
  }
  priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex> {
    return this.read('F17', () => this.inner.priceIndex(symbol, kind));
  }
  /** Charged as one F21 request whatever the pages (as open orders are one F5). */
  triggerOrders(symbol?: string): Promise<TriggerOrder[]> {
    return this.read('F21', () => this.inner.triggerOrders(symbol));
  }
  triggerOrderHistory(symbol: string, query?: TriggerHistoryQuery): Promise<TriggerOrder[]> {
    const params = {
      symbol,
      ...(query?.startMs !== undefined ? { startTime: query.startMs } : {}),
      ...(query?.endMs !== undefined ? { endTime: query.endMs } : {}),
      ...(query?.limit !== undefined ? { pageSize: query.limit } : {}),
    };
    return this.checkedRead(
      () => this.checked('F22', params),
      () => this.inner.triggerOrderHistory(symbol, query),
    );
  }
  openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    return this.read(surface === 'spot' ? this.spotOpenOrders : 'F5', () => this.inner.openOrders(surface, symbol));
  }
  /** Futures: F18 by order id; by client id F5, and F19 too when the order is not among the open ones. */
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    if (surface === 'spot') return this.read('S3', () => this.inner.order(surface, symbol, lookup));
    if (lookup.orderId) return this.read('F18', () => this.inner.order(surface, symbol, lookup));
    return this.read('F5', async () => {
      const found = await this.inner.order(surface, symbol, lookup);
      if (found && found.status !== 'filled' && found.status !== 'canceled') return found;
      return this.read('F19', async () => found);
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
    return this.write(
      surface === 'spot' ? 'S6' : 'F6',
      () => orders.map((order) => ({ clientOid: order.clientOid, orderId: null })),
      () => this.inner.placeOrders(surface, symbol, orders),
    );
  }
  cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    const items = target.orderIds
      ? target.orderIds.map((orderId) => ({ clientOid: null, orderId }))
      : (target.clientOids ?? []).map((clientOid) => ({ clientOid, orderId: null }));
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
  async placeTpSl(req: TpSlRequest): Promise<ItemResult> {
    return (await this.write('F23', [{ clientOid: req.clientOid, orderId: null }], async () => [await this.inner.placeTpSl(req)]))[0]!;
  }
  async modifyTpSl(change: TpSlChange): Promise<ItemResult> {
    return (await this.write('F24', [{ clientOid: null, orderId: change.orderId }], async () => [await this.inner.modifyTpSl(change)]))[0]!;
  }
  async placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult> {
    return (await this.write('F25', [{ clientOid: order.clientOid, orderId: null }], async () => [await this.inner.placeOrder(symbol, order)]))[0]!;
  }
  async cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult> {
    const item = 'orderId' in target ? { clientOid: null, orderId: target.orderId } : { clientOid: target.clientOid, orderId: null };
    return (await this.write('F26', [item], async () => [await this.inner.cancelOrder(target)]))[0]!;
  }
  /** Over the budget, the whole request fails with the venue's 429 (F27 answers no per-item results of its own then). */
  closePositions(symbol?: string): Promise<PositionCloseResult[]> {
    return this.read('F27', () => this.inner.closePositions(symbol));
  }
  cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> {
    return this.write('F28', [{ clientOid: null, orderId: null }], () => this.inner.cancelAllFutures(kind, symbol));
  }
  allPositions(): Promise<Position[]> {
    return this.read('F29', () => this.inner.allPositions());
  }
  /** Charged as one F30 request whatever the pages a kind of several bill types takes. */
  ledger(query?: LedgerQuery): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    const params = {
      ...(query?.symbol ? { symbol: query.symbol } : {}),
      ...(query?.startMs !== undefined ? { startTime: query.startMs } : {}),
      ...(query?.endMs !== undefined ? { endTime: query.endMs } : {}),
      ...(query?.limit !== undefined ? { limit: query.limit } : {}),
    };
    return this.checkedRead(
      () => this.checked('F30', params),
      () => this.inner.ledger(query),
    );
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
