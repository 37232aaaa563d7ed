// Face 1 of the simulator: an in-process ExchangeClient over the matching engine, in virtual time (backtests;
// dry-run through the paper venue). No sockets, no serialisation; answers shaped exactly as the live client's
// normalised ones, and what the live client refuses before sending is refused here the same way.
import type { CandlePriceType, Timeframe, VenueCandle } from '../../domain/candles.js';
import { Decimal } from '../../domain/decimal.js';
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
import { ManualClock } from '../../util/clock.js';
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
import { ExchangeError, classifyItemError, classifyVenueError } from '../errors.js';
import { candleEndpoint, checkRequest } from '../request-checks.js';
import { futuresTypeCode } from '../wire/enums.js';
import type { Book } from './book.js';
import { MatchingEngine, type CancelOutcome, type PlaceOutcome, type SimAccounts, type SimOrder } from './engine.js';
import type { SimFuturesOptions } from './futures-views.js';
import type { MarketSource, SymbolMarket } from './market.js';
import { refusals } from './refusals.js';
import { SPOT_CANDLE_ROWS } from './symbol-candles.js';
import { toVenueCandle, type TickBar } from './tick-bar.js';
import { planStatusCode } from './wire-format.js';

/**
 * A futures balance's `available`, worked out when first read: an own enumerable accessor (a copy or JSON shows it,
 * as a literal's getter would) made of one shared function over a key no copy sees; a getter literal per balance
 * costs a closure, and such objects outlived the young generation.
 */
const AVAILABLE = Symbol('available');
const LATER: PropertyDescriptor = {
  get(this: { [AVAILABLE]: () => Decimal }) {
    return this[AVAILABLE]();
  },
  enumerable: true,
  configurable: true,
};

function placeResult(endpoint: EndpointId, r: PlaceOutcome, clientOid: string): ItemResult {
  return r.ok
    ? { outcome: 'accepted', clientOid, orderId: r.orderId }
    : { outcome: 'rejected', clientOid, orderId: null, error: classifyItemError(endpoint, r.refusal.code, r.refusal.message) };
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
    /** The futures margin model (`exchange.margin`, `sim.futures`); their defaults when absent. */
    futures?: SimFuturesOptions,
  ) {
    this.clock = clock ?? new ManualClock(market.now);
    this.engine = new MatchingEngine(market.symbols, accounts, this.clock, retain, market.seed, futures);
  }

  /** The book of a symbol on a surface, or the venue's refusal of an unknown symbol, as `endpoint` answers it. */
  private bookOf(endpoint: EndpointId, symbol: string, surface: Surface): Book {
    const book = this.engine.book(symbol);
    if (book && book.inst.surface === surface) return book;
    const refusal = refusals.symbol(surface, symbol);
    throw classifyVenueError(endpoint, 400, refusal.code, refusal.message);
  }

  /** The surface of a symbol: its instrument's, else the venue's naming rule. */
  private surfaceOf(symbol: string): Surface {
    return this.engine.instrument(symbol)?.surface ?? surfaceOfSymbol(symbol);
  }

  private venueCandles(book: Book, bars: TickBar[]): VenueCandle[] {
    return bars.reverse().map((bar) => toVenueCandle(bar, book.inst.tickSize, book.inst.stepSize));
  }

  /** Told of every market tick once the engine has applied it (a backtest builds its bars from them). */
  afterTick: ((market: SymbolMarket) => void) | undefined;

  private readonly onTick = (market: SymbolMarket): void => {
    this.clock.set(market.ts);
    this.engine.onTick(market);
    this.afterTick?.(market);
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
    return this.engine
      .trades(symbol, limit)
      .map((t) => ({ symbol, tradeId: t.tradeId, timestampMs: t.ts, price: t.price, size: t.size, buyerMaker: t.buyerMaker }));
  }

  async ticker(symbol: string): Promise<Ticker> {
    const surface = this.surfaceOf(symbol);
    this.bookOf(surface === 'spot' ? 'S11' : 'F12', symbol, surface);
    return this.engine.ticker(symbol, surface === 'spot' ? 'spot' : 'full')!;
  }

  async depth(symbol: string, limit: 15 | 200 = 15): Promise<OrderBook> {
    const surface = this.surfaceOf(symbol);
    const endpoint = surface === 'spot' ? 'S13' : 'F13';
    checkRequest(endpoint, { symbol, limit });
    const book = this.bookOf(endpoint, symbol, surface);
    const { bids, asks } = this.engine.depth(symbol, limit)!;
    const level = ([ticks, steps]: [number, number]) => ({
      price: Decimal.ofSteps(ticks, book.inst.tickSize),
      size: Decimal.ofSteps(steps, book.inst.stepSize),
    });
    return { symbol, bids: bids.map(level), asks: asks.map(level), timestampMs: this.clock.now() };
  }

  /** Spot: the newest `limit` of the rows S10 serves (SPOT_CANDLE_ROWS); futures: F10's `limit` (default 100). */
  async candles(symbol: string, timeframe: Timeframe, opts: { limit?: number; priceType?: CandlePriceType } = {}): Promise<VenueCandle[]> {
    const surface = this.surfaceOf(symbol);
    const endpoint = candleEndpoint(surface, symbol, timeframe, false, opts.priceType);
    checkRequest(endpoint, { symbol, period: timeframe, granularity: timeframe, ...(opts.limit !== undefined ? { limit: opts.limit } : {}) });
    const book = this.bookOf(endpoint, symbol, surface);
    const rows = surface === 'spot' ? Math.min(opts.limit ?? SPOT_CANDLE_ROWS, SPOT_CANDLE_ROWS) : (opts.limit ?? 100);
    return this.venueCandles(book, book.candles.latest(timeframe, rows));
  }

  async historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]> {
    const surface = this.surfaceOf(symbol);
    candleEndpoint(surface, symbol, timeframe, true, window.priceType);
    checkRequest('F11', {
      symbol,
      granularity: timeframe,
      startTime: window.startMs,
      endTime: window.endMs,
      ...(window.limit !== undefined ? { limit: window.limit } : {}),
    });
    const book = this.bookOf('F11', symbol, surface);
    return this.venueCandles(book, book.candles.between(timeframe, window.startMs, window.endMs, window.limit ?? ENDPOINTS.F11.maxPageSize!));
  }

  async fundingRates(symbol?: string): Promise<FundingRate[]> {
    const symbols = symbol ? [this.bookOf('F14', symbol, 'futures').inst.symbol] : this.engine.instruments('futures').map((i) => i.symbol);
    const nowMs = this.clock.now();
    return symbols.map((s) => ({
      symbol: s,
      rate: this.engine.funding.currentRate(s, nowMs),
      cycleMinutes: this.engine.funding.cycleMinutes(s),
      timestampMs: nowMs,
    }));
  }

  async nextFundingTime(symbol: string): Promise<number> {
    this.bookOf('F15', symbol, 'futures');
    return this.engine.funding.nextSettlementMs(symbol, this.clock.now());
  }

  async fundingHistory(symbol: string, limit = 10): Promise<FundingSettlement[]> {
    checkRequest('F16', { symbol, limit });
    this.bookOf('F16', symbol, 'futures');
    return this.engine.funding.history(symbol, this.clock.now(), limit).map((s) => ({ symbol, rate: s.rate, fundingTimeMs: s.settlementMs }));
  }

  /** The contract's index (the market's last price) or mark (index + the seeded basis), as F17 serves them. */
  async priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex> {
    this.bookOf('F17', symbol, 'futures');
    return { symbol, kind, price: (kind === 'mark' ? this.engine.markPrice(symbol) : this.engine.indexPrice(symbol))!, timestampMs: this.clock.now() };
  }

  async triggerOrders(symbol?: string): Promise<TriggerOrder[]> {
    if (symbol) this.bookOf('F21', symbol, 'futures');
    return this.engine.pendingTriggers(symbol).map((order) => this.toTriggerOrder(order));
  }

  async triggerOrderHistory(symbol: string, query: TriggerHistoryQuery = {}): Promise<TriggerOrder[]> {
    checkRequest('F22', {
      symbol,
      ...(query.startMs !== undefined ? { startTime: query.startMs } : {}),
      ...(query.endMs !== undefined ? { endTime: query.endMs } : {}),
      ...(query.limit !== undefined ? { pageSize: query.limit } : {}),
    });
    this.bookOf('F22', symbol, 'futures');
    const [from, to] = [query.startMs ?? Number.NEGATIVE_INFINITY, query.endMs ?? Number.POSITIVE_INFINITY];
    return this.engine
      .finishedTriggers(symbol)
      .filter((order) => order.createdAtMs >= from && order.createdAtMs <= to)
      .slice(0, query.limit ?? ENDPOINTS.F22.maxPageSize!)
      .map((order) => this.toTriggerOrder(order));
  }

  /** A trigger order as F21 / F22 show it: the raw status and type are the venue's digits. */
  private toTriggerOrder(order: SimOrder): TriggerOrder {
    const inst = this.engine.instrument(order.symbol)!;
    return Object.assign({}, this.engine.toOrder(order), {
      rawStatus: planStatusCode(order),
      rawType: futuresTypeCode(order.positionSide!, order.reduceOnly),
      triggerPrice: order.triggerTicks === null ? null : Decimal.ofSteps(order.triggerTicks, inst.tickSize),
      triggeredAtMs: order.firedAtMs,
    });
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

  async allPositions(): Promise<Position[]> {
    return this.engine.specs('futures').flatMap((spec) => this.engine.positions(spec.symbol));
  }

  async ledger(query: LedgerQuery = {}): Promise<{ entries: LedgerEntry[]; hasMore: boolean }> {
    return this.engine.ledger(query);
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
    const account = this.engine.futuresBalance();
    const available = account.available;
    if (typeof available !== 'function')
      return [
        {
          surface: 'futures',
          asset: 'USDT',
          available,
          frozen: null,
          total: account.collateral,
          cumFunding: account.cumFunding,
          liquidating: account.liquidating,
        },
      ];
    const balance = { surface: 'futures', asset: 'USDT' } as Balance & { [AVAILABLE]: () => Decimal };
    Object.defineProperty(balance, AVAILABLE, { value: available });
    Object.defineProperty(balance, 'available', LATER);
    balance.frozen = null;
    balance.total = account.collateral;
    balance.cumFunding = account.cumFunding;
    balance.liquidating = account.liquidating;
    return [balance];
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

  async placeTpSl(req: TpSlRequest): Promise<ItemResult> {
    return placeResult('F23', this.engine.placeTpSl(req), req.clientOid);
  }

  async modifyTpSl(change: TpSlChange): Promise<ItemResult> {
    const r = this.engine.modifyTpSl(change);
    const clientOid = this.engine.rawOrder(change.orderId)?.clientOid ?? null;
    if (r.ok) return { outcome: 'accepted', clientOid, orderId: change.orderId };
    return { outcome: 'rejected', clientOid, orderId: change.orderId, error: classifyItemError('F24', r.refusal.code, r.refusal.message) };
  }

  /** One futures order (F25), checked as an item of F6. */
  async placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult> {
    return placeResult('F25', this.engine.place('futures', symbol, [order])[0]!, order.clientOid);
  }

  /** One futures order by id or client id, whichever contract it is on (F26 sends no symbol). */
  async cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult> {
    const found =
      'orderId' in target
        ? this.engine.rawOrder(target.orderId)
        : this.engine.openOrders('futures').find((order) => order.clientOid === target.clientOid && !order.isTrigger);
    if (!found || found.surface !== 'futures') {
      const refusal = refusals.notFound('futures');
      const keys = 'orderId' in target ? { orderId: target.orderId, clientOid: null } : { orderId: null, clientOid: target.clientOid };
      return cancelResult('F26', { ok: false, ...keys, refusal });
    }
    return cancelResult('F26', this.engine.cancel('futures', found.symbol, { orderIds: [found.orderId] })[0]!);
  }

  async closePositions(symbol?: string): Promise<PositionCloseResult[]> {
    if (symbol !== undefined) this.bookOf('F27', symbol, 'futures');
    return this.engine.closePositions(symbol).map((r) => ({ positionId: r.positionId, ok: r.ok, orderId: r.orderId, error: r.error === '' ? null : r.error }));
  }

  async cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]> {
    if (symbol !== undefined) this.bookOf('F28', symbol, 'futures');
    return this.engine.cancelAllOrders(kind, symbol).map((r) => cancelResult('F28', r));
  }

  async close(): Promise<void> {
    /* nothing held */
  }
}
