// An ExchangeClient wrapper that puts network time between the caller and the venue: every request reaches
// the venue one way later and its answer comes back one way after that, in whatever time `sleep` measures
// (virtual time in backtests). Orders therefore meet the market as it is when they arrive, not when sent.
import type { CandlePriceType, Timeframe, VenueCandle } from '../../domain/candles.js';
import type {
  Balance,
  Fill,
  FundingRate,
  FundingSettlement,
  Instrument,
  LedgerEntry,
  OrderBook,
  Position,
  PriceIndex,
  PublicTrade,
  Surface,
  Ticker,
} from '../../domain/market.js';
import type { Order } from '../../domain/order.js';
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

/** Where the client waits out network time: `fn(arg)` runs `ms` later (the backtest's VirtualClock.wait). */
export interface NetworkTime {
  wait<A>(ms: number, fn: (arg: A) => void, arg: A): void;
}

/**
 * A request in flight: sent to the venue when its way out is over, settled when its answer's way back is. One
 * object and one promise a request, no sleep of its own for each leg.
 */
class InFlight<T> {
  constructor(
    private readonly client: LatencyClient,
    private readonly request: () => Promise<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  /** Reached the venue: asks it now, with the market as it is now. */
  arrive(): void {
    let answer: Promise<T>;
    try {
      answer = this.request();
    } catch (err) {
      this.client.time.wait(this.client.backMs, this.reject, err);
      return;
    }
    answer.then(
      (value) => this.client.time.wait(this.client.backMs, this.resolve, value),
      (err: unknown) => this.client.time.wait(this.client.backMs, this.reject, err),
    );
  }
}

function arrive(r: InFlight<unknown>): void {
  r.arrive();
}

export class LatencyClient implements ExchangeClient {
  constructor(
    private readonly inner: ExchangeClient,
    /** Time to the venue and back. */
    readonly outMs: number,
    readonly backMs: number,
    readonly time: NetworkTime,
  ) {}

  private call<T>(request: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.time.wait(this.outMs, arrive, new InFlight<T>(this, request, resolve, reject) as InFlight<unknown>);
    });
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
  ticker(symbol: string): Promise<Ticker> {
    return this.call(() => this.inner.ticker(symbol));
  }
  depth(symbol: string, limit?: 15 | 200): Promise<OrderBook> {
    return this.call(() => this.inner.depth(symbol, limit));
  }
  candles(symbol: string, timeframe: Timeframe, opts?: { limit?: number; priceType?: CandlePriceType }): Promise<VenueCandle[]> {
    return this.call(() => this.inner.candles(symbol, timeframe, opts));
  }
  historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    return this.call(() => this.inner.historyCandles(symbol, timeframe, window));
  }
  fundingRates(symbol?: string): Promise<FundingRate[]> {
    return this.call(() => this.inner.fundingRates(symbol));
  }
  nextFundingTime(symbol: string): Promise<number> {
    return this.call(() => this.inner.nextFundingTime(symbol));
  }
  fundingHistory(symbol: string, limit?: number): Promise<FundingSettlement[]> {
    return this.call(() => this.inner.fundingHistory(symbol, limit));
  }
  priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex> {
    return this.call(() => this.inner.priceIndex(symbol, kind));
  }
  triggerOrders(symbol?: string): Promise<TriggerOrder[]> {
    return this.call(() => this.inner.triggerOrders(symbol));
  }
  triggerOrderHistory(symbol: string, query?: TriggerHistoryQuery): Promise<TriggerOrder[]> {
    return this.call(() => this.inner.triggerOrderHistory(symbol, query));
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
  placeTpSl(req: TpSlRequest): Promise<ItemResult> {
    return this.call(() => this.inner.placeTpSl(req));
  }
  modifyTpSl(change: TpSlChange): Promise<ItemResult> {
    return this.call(() => this.inner.modifyTpSl(change));
  }
  placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult> {
    return this.call(() => this.inner.placeOrder(symbol, order));
  }
  cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult> {
    return this.call(() => this.inner.cancelOrder(target));
  }
  closePositions(symbol?: string): Promise<PositionCloseResult[]> {
    return this.call(() => this.inner.closePositions(symbol));
  }
  cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> {
    return this.call(() => this.inner.cancelAllFutures(kind, symbol));
  }
  allPositions(): Promise<Position[]> {
    return this.call(() => this.inner.allPositions());
  }
  ledger(query?: LedgerQuery): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    return this.call(() => this.inner.ledger(query));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
