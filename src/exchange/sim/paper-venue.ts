// The paper venue of dry-run: the simulator's engine trading against market data followed from the live venue.
// Each ticker poll is appended to a replay feed and the engine is moved to the poll's time, so resting orders
// fill when the live price crosses them. Public market data beyond the followed tickers (one symbol's ticker, depth,
// candles, funding, index and mark prices) is the live venue's, read through the market-data client it wraps;
// everything of the account (orders, trigger orders, take-profits and stop-losses, fills, positions, balances, the
// ledger) is the simulator's.
import type { CandlePriceType, Timeframe, VenueCandle } from '../../domain/candles.js';
import { Decimal } from '../../domain/decimal.js';
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
import type { SimAccounts } from './engine.js';
import type { SimFuturesOptions } from './futures-views.js';
import { specFromInstrument } from './instruments.js';
import { ReplayMarket } from './market.js';
import { SimulatedExchange } from './simulated-exchange.js';

/** Size of the trade a followed ticker stands for, in multiples of the instrument's minimum order size. */
const FOLLOWED_TRADE_MIN_SIZES = Decimal.fromInt(100);

export class PaperVenue implements ExchangeClient {
  readonly simulator: SimulatedExchange;
  private readonly feed: ReplayMarket;
  /** The traded instruments by symbol. */
  private readonly bySymbol: ReadonlyMap<string, Instrument>;
  /** Where public market data is read: the live venue's client, else the simulator (which knows only what it followed). */
  private readonly marketData: ExchangeClient;

  constructor(
    /** The instruments traded, as the live venue lists them. */
    instruments: readonly Instrument[],
    accounts: SimAccounts,
    /** Final orders and fills kept per symbol (history reads). */
    retainOrders: number,
    /** The client of the live venue's public market data. */
    marketData?: ExchangeClient,
    /** The futures margin model (`exchange.margin`, `sim.futures`); their defaults when absent. */
    futures?: SimFuturesOptions,
  ) {
    this.bySymbol = new Map(instruments.map((i) => [i.symbol, i]));
    // The market starts empty: prices come only from what is followed.
    this.feed = new ReplayMarket(instruments.map((i) => specFromInstrument(i, Decimal.fromInt(1))));
    this.simulator = new SimulatedExchange(this.feed, accounts, retainOrders, undefined, futures);
    this.marketData = marketData ?? this.simulator;
  }

  /**
   * Follows the live market: every ticker with a last price becomes a trade of the feed (with its bid and ask when
   * known), then the engine moves to `nowMs`. Tickers of symbols this venue does not trade are left out, and a
   * ticker older than the feed's last record is dropped (the feed never goes back in time).
   */
  follow(tickers: Iterable<Ticker>, nowMs: number): void {
    this.feed.append(
      [...tickers]
        .filter((t) => t.last && this.bySymbol.has(t.symbol))
        .map((t) => ({
          ts: t.timestampMs,
          symbol: t.symbol,
          price: t.last!.toString(),
          size: this.bySymbol.get(t.symbol)!.minSize.mul(FOLLOWED_TRADE_MIN_SIZES).toString(),
          ...(t.bestBid ? { bid: t.bestBid.toString() } : {}),
          ...(t.bestAsk ? { ask: t.bestAsk.toString() } : {}),
        })),
    );
    this.simulator.advanceTo(nowMs);
  }

  instruments(surface: Surface): Promise<Instrument[]> {
    return this.simulator.instruments(surface);
  }
  tickers(): Promise<Ticker[]> {
    return this.simulator.tickers();
  }
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]> {
    return this.simulator.recentTrades(symbol, limit);
  }
  ticker(symbol: string): Promise<Ticker> {
    return this.marketData.ticker(symbol);
  }
  depth(symbol: string, limit?: 15 | 200): Promise<OrderBook> {
    return this.marketData.depth(symbol, limit);
  }
  candles(symbol: string, timeframe: Timeframe, opts?: { limit?: number; priceType?: CandlePriceType }): Promise<VenueCandle[]> {
    return this.marketData.candles(symbol, timeframe, opts);
  }
  historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    return this.marketData.historyCandles(symbol, timeframe, window);
  }
  fundingRates(symbol?: string): Promise<FundingRate[]> {
    return this.marketData.fundingRates(symbol);
  }
  nextFundingTime(symbol: string): Promise<number> {
    return this.marketData.nextFundingTime(symbol);
  }
  fundingHistory(symbol: string, limit?: number): Promise<FundingSettlement[]> {
    return this.marketData.fundingHistory(symbol, limit);
  }
  priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex> {
    return this.marketData.priceIndex(symbol, kind);
  }
  triggerOrders(symbol?: string): Promise<TriggerOrder[]> {
    return this.simulator.triggerOrders(symbol);
  }
  triggerOrderHistory(symbol: string, query?: TriggerHistoryQuery): Promise<TriggerOrder[]> {
    return this.simulator.triggerOrderHistory(symbol, query);
  }
  openOrders(surface: Surface, symbol?: string): Promise<Order[]> {
    return this.simulator.openOrders(surface, symbol);
  }
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null> {
    return this.simulator.order(surface, symbol, lookup);
  }
  fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]> {
    return this.simulator.fills(surface, symbol, orderId);
  }
  positions(symbol: string): Promise<Position[]> {
    return this.simulator.positions(symbol);
  }
  balances(surface: Surface): Promise<Balance[]> {
    return this.simulator.balances(surface);
  }
  placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]> {
    return this.simulator.placeOrders(surface, symbol, orders);
  }
  cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]> {
    return this.simulator.cancelOrders(surface, symbol, target);
  }
  cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]> {
    return this.simulator.cancelAll(surface, symbol);
  }
  placeTrigger(req: TriggerOrderRequest): Promise<ItemResult> {
    return this.simulator.placeTrigger(req);
  }
  cancelTrigger(symbol: string, orderId: string): Promise<ItemResult> {
    return this.simulator.cancelTrigger(symbol, orderId);
  }
  placeTpSl(req: TpSlRequest): Promise<ItemResult> {
    return this.simulator.placeTpSl(req);
  }
  modifyTpSl(change: TpSlChange): Promise<ItemResult> {
    return this.simulator.modifyTpSl(change);
  }
  placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult> {
    return this.simulator.placeOrder(symbol, order);
  }
  cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult> {
    return this.simulator.cancelOrder(target);
  }
  closePositions(symbol?: string): Promise<PositionCloseResult[]> {
    return this.simulator.closePositions(symbol);
  }
  cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> {
    return this.simulator.cancelAllFutures(kind, symbol);
  }
  allPositions(): Promise<Position[]> {
    return this.simulator.allPositions();
  }
  ledger(query?: LedgerQuery): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    return this.simulator.ledger(query);
  }
  close(): Promise<void> {
    return this.simulator.close();
  }
}
