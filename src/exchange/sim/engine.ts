// The simulator's matching engine, the one entry point to its state: market ticks reach resting and trigger
// orders and build the candles; orders are placed, canceled and filled with maker/taker fees, all exact, settling
// into the spot wallet or the futures account. Futures ticks also move the mark, settle funding and may liquidate
// the account (futures-desk.ts); position TP/SL, closing positions and cancel-all act through position-orders.ts.
// Market ticks come from a MarketSource; order and account changes happen only through the methods here. No wall
// clock, no randomness: time comes from the clock.
import { Decimal } from '../../domain/decimal.js';
import type { Balance, Fill, Instrument, Position, PositionSide, Surface, Ticker } from '../../domain/market.js';
import { futuresSide, type Order } from '../../domain/order.js';
import type { TimeSource } from '../../util/clock.js';
import { requestedPositionSide, type LedgerQuery, type OrderRequest, type TpSlChange, type TpSlRequest, type TriggerOrderRequest } from '../client.js';
import {
  FOLD_AT,
  createBook,
  crossesMarket,
  depthOf,
  hasLiveClientOid,
  priceOf,
  recordDay,
  recordTrade,
  reindex,
  tapeTrades,
  tickerOf,
  type Book,
  type FillModel,
  type FuturesFillDetail,
  type TapeTrade,
} from './book.js';
import { FundingSchedule, type RecordedFunding } from './funding-schedule.js';
import { FuturesAccount } from './futures-account.js';
import { FuturesDesk } from './futures-desk.js';
import { FuturesLedger } from './futures-ledger.js';
import {
  DEFAULT_SIM_FUTURES,
  type SimAccountView,
  type SimFuturesOptions,
  type SimLedgerPage,
  type SimLiquidation,
  type SimPositionView,
} from './futures-views.js';
import type { SimInstrumentSpec } from './instruments.js';
import { MarkModel } from './mark-model.js';
import type { SymbolMarket } from './market.js';
import { OrderFlow, type EngineStats } from './order-flow.js';
import { OrderHistory } from './order-history.js';
import { validateOrder, validateTrigger } from './order-validation.js';
import { cancelAllOrders, closePositions, modifyTpSl, placeTpSl, type PositionCloseOutcome } from './position-orders.js';
import { accountView, domainPositions, positionViews } from './position-views.js';
import { isRefusal, refusals, type CancelOutcome, type PlaceOutcome, type Refusal } from './refusals.js';
import { toDomainOrder, type SimOrder } from './sim-order.js';
import { SpotWallet } from './spot-wallet.js';
import type { SymbolCandles } from './symbol-candles.js';
import type { TickerView } from './ticker-snapshot.js';

export type { FuturesFillDetail } from './book.js';
export type { CancelOutcome, PlaceOutcome, Refusal } from './refusals.js';
export type { SimOrder } from './sim-order.js';
export type { PositionCloseOutcome } from './position-orders.js';
export type { EngineStats } from './order-flow.js';

export interface SimAccounts {
  /** Spot balances by asset. */
  spot: Record<string, string>;
  /** Futures collateral (USDT) and the leverage used for margin. */
  futuresCollateral: string;
  leverage: number;
}

export class MatchingEngine {
  private readonly books = new Map<string, Book>();
  /** The same books by market index: a tick finds its book without a lookup by name. */
  private readonly byIndex: Book[] = [];
  private readonly orderHistory: OrderHistory;
  private readonly spotWallet: SpotWallet;
  private readonly futuresAccount: FuturesAccount;
  private readonly futuresBooks: Book[];
  private readonly bills: FuturesLedger;
  /** How orders are made, matched, filled and finished (lent to the futures modules as their EngineOps). */
  private readonly flow: OrderFlow;
  private readonly desk: FuturesDesk;
  readonly stats: EngineStats;
  /** When funding settles, per contract, and at which rates. */
  readonly funding: FundingSchedule;

  constructor(
    markets: SymbolMarket[],
    accounts: SimAccounts,
    clock: TimeSource,
    /** Final orders, fills and ledger entries kept per symbol for history reads (oldest dropped beyond it). */
    retain = Number.POSITIVE_INFINITY,
    /** The market's seed: funding rates and the mark's basis follow it (0 for a replay). */
    seed = 0,
    /** The futures margin model (default: `exchange.margin` and `sim.futures` defaults). */
    futures: SimFuturesOptions = DEFAULT_SIM_FUTURES,
  ) {
    this.funding = new FundingSchedule(
      seed,
      markets.map((market) => market.spec),
    );
    for (const market of markets) {
      const book = createBook(market, new MarkModel(seed, market.spec.symbol, market.spec.surface === 'futures' ? futures.markBasisBps : 0));
      this.books.set(market.spec.symbol, book);
      this.byIndex[market.index] = book;
    }
    this.orderHistory = new OrderHistory(retain);
    this.spotWallet = new SpotWallet(accounts.spot);
    this.futuresBooks = this.booksOf('futures');
    this.futuresAccount = new FuturesAccount(accounts.futuresCollateral, accounts.leverage, this.futuresBooks, futures);
    this.bills = new FuturesLedger(retain);
    this.flow = new OrderFlow(clock, this.futuresAccount, this.bills, this.orderHistory, this.spotWallet, this.books, this.futuresBooks);
    this.stats = this.flow.stats;
    this.desk = new FuturesDesk(this.flow, this.funding);
    this.flow.afterFuturesFill = (book, order, pnl, fee, nowMs) => this.desk.afterFill(book, order, pnl, fee, nowMs);
  }

  /** Moves on every change to orders, balances or positions: readers may keep what they built while it holds. */
  get version(): number {
    return this.flow.version;
  }

  /** How resting orders fill (config sim.fills; book.ts FillModel). Orders already resting keep their place in line. */
  get fillModel(): FillModel {
    return this.flow.fillModel;
  }
  set fillModel(model: FillModel) {
    this.flow.fillModel = model;
  }

  /** Called after every fill (journal, reports, tests). */
  get onFill(): ((fill: Fill, order: SimOrder) => void) | undefined {
    return this.flow.onFill;
  }
  set onFill(listener: ((fill: Fill, order: SimOrder) => void) | undefined) {
    this.flow.onFill = listener;
  }

  // ---------------------------------------------------------------- market ticks

  /**
   * Applies one market tick: statistics, the trade tape, the candles, any resting or trigger order it reaches and,
   * for a contract holding a position (or watching its mark, or with funding due), mark, funding and liquidation.
   */
  onTick(market: SymbolMarket): void {
    const book = this.byIndex[market.index]!;
    this.stats.ticks++;
    const last = market.last;
    recordDay(book, market);
    book.volSteps += market.tradeSize;
    book.volTickSteps += last * market.tradeSize;
    if (book.volTickSteps > FOLD_AT) {
      book.volFolded += BigInt(book.volTickSteps);
      book.volTickSteps = 0;
    }
    recordTrade(book, market);
    book.candles.onTick(market.ts, last, market.tradeSize);
    const watched = market.ts >= book.watchFromMs;
    if (watched) this.desk.beforeMatch(book);
    if (book.open.length !== 0) {
      // Quick reject: nothing resting is reached by this tick.
      const low = last < market.ask ? last : market.ask;
      const high = last > market.bid ? last : market.bid;
      const mark = book.markTicks;
      const reached =
        low <= book.maxBuyTicks ||
        high >= book.minSellTicks ||
        last >= book.minTriggerUpTicks ||
        last <= book.maxTriggerDownTicks ||
        mark >= book.minMarkUpTicks ||
        mark <= book.maxMarkDownTicks;
      if (reached) this.flow.matchResting(book);
    }
    if (watched) this.desk.afterMatch(book);
  }

  // ---------------------------------------------------------------- orders

  /** Places a batch; each item stands alone (one refused item does not affect the others). */
  place(surface: Surface, symbol: string, reqs: OrderRequest[]): PlaceOutcome[] {
    this.flow.version++;
    const book = this.books.get(symbol);
    return reqs.map((req): PlaceOutcome => {
      if (!book || book.inst.surface !== surface) return { ok: false, refusal: refusals.symbol(surface, symbol) };
      const checked = validateOrder(book, req);
      if (isRefusal(checked)) return { ok: false, refusal: checked };
      if (hasLiveClientOid(book, req.clientOid)) return { ok: false, refusal: refusals.failed(surface, `duplicate client id ${req.clientOid}`) };
      if (surface === 'futures' && req.side !== futuresSide(requestedPositionSide(req), req.reduceOnly ?? false)) {
        return { ok: false, refusal: refusals.futuresParam('type: side does not match the position') };
      }
      const order = this.flow.newOrder(book, req, checked.ticks, checked.steps);
      if (order.tif === 'post_only' && crossesMarket(book, order))
        return { ok: false, refusal: refusals.failed(surface, 'post only order would take liquidity') };
      const refusal = surface === 'spot' ? this.spotWallet.reserve(book, order) : this.futuresAccount.check(book, order);
      if (refusal) return { ok: false, refusal };
      this.flow.admit(book, order);
      this.flow.takeLiquidity(book, order);
      reindex(book);
      return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
    });
  }

  // ---------------------------------------------------------------- triggers

  placeTrigger(req: TriggerOrderRequest): PlaceOutcome {
    this.flow.version++;
    const book = this.books.get(req.symbol);
    if (!book || book.inst.surface !== 'futures') return { ok: false, refusal: refusals.symbol('futures', req.symbol) };
    const side = futuresSide(req.positionSide, req.reduceOnly);
    const orderReq: OrderRequest = {
      clientOid: req.clientOid,
      side,
      kind: req.executePrice ? 'limit' : 'market',
      timeInForce: 'gtc',
      size: req.size,
      positionSide: req.positionSide,
      reduceOnly: req.reduceOnly,
      ...(req.executePrice ? { price: req.executePrice } : {}),
    };
    const checked = validateTrigger(book, orderReq, req.triggerPrice);
    if (isRefusal(checked)) return { ok: false, refusal: checked };
    if (hasLiveClientOid(book, req.clientOid)) return { ok: false, refusal: refusals.failed('futures', `duplicate client id ${req.clientOid}`) };
    const order = this.flow.newOrder(book, orderReq, checked.ticks, checked.steps);
    order.isTrigger = true;
    order.status = 'untriggered';
    order.triggerTicks = checked.trigger;
    // Fires when the last price reaches the trigger from the side it is on now.
    order.triggerUp = checked.trigger > book.m.last;
    this.flow.admit(book, order);
    if (checked.trigger === book.m.last) this.flow.fire(book, order);
    reindex(book);
    return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
  }

  cancelTrigger(symbol: string, orderId: string): CancelOutcome {
    this.flow.version++;
    const order = this.orderHistory.get(orderId);
    const book = this.books.get(symbol);
    if (!book || !order || !order.isTrigger || order.symbol !== symbol || order.status !== 'untriggered') {
      return { ok: false, orderId, clientOid: order?.clientOid ?? null, refusal: refusals.notFound('futures') };
    }
    this.flow.finish(book, order, 'canceled');
    reindex(book);
    return { ok: true, orderId, clientOid: order.clientOid };
  }

  // ---------------------------------------------------------------- cancels

  cancel(surface: Surface, symbol: string, by: { orderIds?: string[]; clientOids?: string[] }): CancelOutcome[] {
    this.flow.version++;
    const book = this.books.get(symbol);
    const keys = by.orderIds
      ? by.orderIds.map((orderId) => ({ orderId, clientOid: null as string | null }))
      : (by.clientOids ?? []).map((clientOid) => ({ orderId: null as string | null, clientOid }));
    const out = keys.map((key): CancelOutcome => {
      const order = key.orderId !== null ? this.orderHistory.get(key.orderId) : book?.open.find((x) => x.clientOid === key.clientOid && !x.isTrigger);
      if (
        !book ||
        !order ||
        order.symbol !== symbol ||
        order.surface !== surface ||
        order.isTrigger ||
        (order.status !== 'open' && order.status !== 'pending')
      ) {
        return { ok: false, orderId: key.orderId, clientOid: key.clientOid, refusal: refusals.notFound(surface) };
      }
      this.flow.finish(book, order, 'canceled');
      return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
    });
    if (book) reindex(book);
    return out;
  }

  /** Spot S5 / futures F7 over the open orders of one symbol. */
  cancelAll(surface: Surface, symbol: string): CancelOutcome[] {
    this.flow.version++;
    const book = this.books.get(symbol);
    if (!book || book.inst.surface !== surface) return [];
    const ids = book.open.filter((order) => !order.isTrigger && order.status === 'open').map((order) => order.orderId);
    return this.cancel(surface, symbol, { orderIds: ids });
  }

  // ---------------------------------------------------------------- positions (F23, F24, F27, F28)

  /** A position's take-profit or stop-loss (see position-orders.ts). */
  placeTpSl(req: TpSlRequest): PlaceOutcome {
    this.flow.version++;
    return placeTpSl(this.flow, req);
  }

  /** Moves an untriggered TP/SL in place; unknown: 50005. */
  modifyTpSl(change: TpSlChange): { ok: true } | { ok: false; refusal: Refusal } {
    this.flow.version++;
    return modifyTpSl(this.flow, change);
  }

  /** Closes every position side of a contract, or of all, at market; resting orders stay. */
  closePositions(symbol?: string): PositionCloseOutcome[] {
    this.flow.version++;
    return closePositions(this.flow, symbol);
  }

  /** Cancels every open normal order, or every untriggered trigger order (TP/SL included), of a contract or of all. */
  cancelAllOrders(kind: 'normal' | 'plan', symbol?: string): CancelOutcome[] {
    this.flow.version++;
    return cancelAllOrders(this.flow, kind, symbol);
  }

  /** Recorded funding of a contract (a replay): the recorded settlement times and rates rule it from now on. */
  setFundingHistory(symbol: string, history: readonly RecordedFunding[]): void {
    const book = this.futuresBookOf(symbol);
    if (!book) throw new RangeError(`not a futures contract: ${symbol}`);
    this.desk.setFundingHistory(book, history);
  }

  // ---------------------------------------------------------------- reads

  /** A symbol's book (tests and accounting checks read its instrument and market). */
  book(symbol: string): Book | undefined {
    return this.books.get(symbol);
  }

  private booksOf(surface: Surface): Book[] {
    return [...this.books.values()].filter((book) => book.inst.surface === surface);
  }

  private futuresBookOf(symbol: string): Book | undefined {
    return this.flow.futuresBook(symbol);
  }

  instruments(surface: Surface): Instrument[] {
    return this.booksOf(surface).map((book) => book.inst);
  }

  specs(surface: Surface): SimInstrumentSpec[] {
    return this.booksOf(surface).map((book) => book.spec);
  }

  instrument(symbol: string): Instrument | undefined {
    return this.books.get(symbol)?.inst;
  }

  /**
   * The symbol's ticker now: every field, or one of the venue's views (`true`: the latest trade only, what a spot
   * pair's S9 read shows).
   */
  ticker(symbol: string, view: boolean | TickerView = false): Ticker | undefined {
    const book = this.books.get(symbol);
    return book ? tickerOf(book, view === true ? 'trade' : view === false ? 'full' : view) : undefined;
  }

  tickers(surface: Surface): Ticker[] {
    return this.booksOf(surface).map((book) => tickerOf(book, 'full'));
  }

  /** A contract's mark price now (F17 MARK); undefined for an unknown symbol or a spot pair. */
  markPrice(symbol: string): Decimal | undefined {
    const book = this.futuresBookOf(symbol);
    return book ? priceOf(book, book.mark.markTicks(book.m)) : undefined;
  }

  /** A contract's index price now (F17 INDEX). */
  indexPrice(symbol: string): Decimal | undefined {
    const book = this.futuresBookOf(symbol);
    return book ? priceOf(book, book.mark.indexTicks(book.m)) : undefined;
  }

  /** The symbol's book `levels` deep a side (see depthOf), in ticks and steps; undefined for an unknown symbol. */
  depth(symbol: string, levels: number): ReturnType<typeof depthOf> | undefined {
    const book = this.books.get(symbol);
    return book ? depthOf(book, levels) : undefined;
  }

  /** The symbol's candles. */
  candles(symbol: string): SymbolCandles | undefined {
    return this.books.get(symbol)?.candles;
  }

  /** Trigger orders not triggered yet, of one contract or of all, in placement order. */
  pendingTriggers(symbol?: string): SimOrder[] {
    return this.openOrders('futures', symbol).filter((order) => order.isTrigger && order.status === 'untriggered');
  }

  /** Final trigger orders of a contract still kept (filled, or canceled before or after firing), newest first. */
  finishedTriggers(symbol: string): SimOrder[] {
    return this.history(symbol).filter((order) => order.isTrigger && (order.status === 'filled' || order.status === 'canceled'));
  }

  /** Recent public trades, newest first. */
  trades(symbol: string, limit: number): TapeTrade[] {
    const book = this.books.get(symbol);
    return book ? tapeTrades(book, limit) : [];
  }

  toOrder(order: SimOrder): Order {
    return toDomainOrder(order, this.books.get(order.symbol)!.inst);
  }

  rawOrder(orderId: string): SimOrder | undefined {
    return this.orderHistory.get(orderId);
  }

  /** By order id; or by client id, the newest order carrying it (ids are unique only among open orders). */
  findOrder(symbol: string | undefined, lookup: { orderId?: string; clientOid?: string }): SimOrder | undefined {
    if (lookup.orderId) {
      const order = this.orderHistory.get(lookup.orderId);
      return order && (!symbol || order.symbol === symbol) ? order : undefined;
    }
    const books = symbol ? [this.books.get(symbol)].filter((book): book is Book => !!book) : this.books.values();
    return this.orderHistory.newestWithClientOid(books, lookup.clientOid);
  }

  openOrders(surface: Surface, symbol?: string): SimOrder[] {
    const out: SimOrder[] = [];
    for (const book of this.books.values()) if (book.inst.surface === surface && (!symbol || book.inst.symbol === symbol)) out.push(...book.open);
    return out;
  }

  /** Every order of a symbol, newest first (spot order history). */
  history(symbol: string): SimOrder[] {
    return [...(this.books.get(symbol)?.history ?? [])].reverse();
  }

  fills(symbol: string, orderId?: string): Fill[] {
    const book = this.books.get(symbol);
    return book ? this.orderHistory.fills(book, orderId) : [];
  }

  /** Maker/taker, position and realised PnL of a futures fill still kept. */
  fillDetail(symbol: string, fillId: string): FuturesFillDetail | undefined {
    return this.books.get(symbol)?.fillDetails.get(fillId);
  }

  spotBalances(): Balance[] {
    return this.spotWallet.balances();
  }

  futuresCollateral(): Decimal {
    return this.futuresAccount.total();
  }

  /** Open position sides of a contract with mark, unrealised PnL, margin, funding and liquidation price (F4). */
  positions(symbol: string): Position[] {
    const book = this.futuresBookOf(symbol);
    return book ? domainPositions(this.futuresAccount, book) : [];
  }

  /** Every open position side, of one contract or of all (F4, F29). */
  positionViews(symbol?: string): SimPositionView[] {
    const books = symbol === undefined ? this.futuresBooks : [this.futuresBookOf(symbol)].filter((book): book is Book => book !== undefined);
    return books.flatMap((book) => positionViews(this.futuresAccount, book));
  }

  /** The futures account at the marks now (F3). */
  accountView(): SimAccountView {
    return accountView(this.futuresAccount);
  }

  /**
   * What the futures balance (F3's USDT row) shows, without the account's margin rates; `available` as it is now,
   * worked out when first read (a balance polled every few seconds is seldom read).
   */
  futuresBalance(): Pick<SimAccountView, 'collateral' | 'cumFunding' | 'liquidating'> & { available: Decimal | (() => Decimal) } {
    const account = this.futuresAccount;
    return { collateral: account.total(), available: account.availableLater(), cumFunding: account.cumFunding, liquidating: account.liquidating };
  }

  /** The futures ledger (F30), newest first. */
  ledger(query: LedgerQuery = {}): SimLedgerPage {
    return this.bills.query(query);
  }

  /** Every ledger entry kept, oldest first (accounting checks and reports). */
  ledgerEntries(symbol?: string): ReturnType<FuturesLedger['entries']> {
    return this.bills.entries(symbol);
  }

  /** Liquidations so far, oldest first. */
  liquidations(): SimLiquidation[] {
    return this.desk.liquidations();
  }

  /** Realised PnL of a position side since the start (for reports and accounting checks). */
  realized(symbol: string, side: PositionSide): Decimal {
    return this.books.get(symbol)?.positions[side].realized ?? Decimal.ZERO;
  }
}
