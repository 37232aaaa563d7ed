// The simulator's matching engine, the one entry point to its state: market ticks reach resting and trigger
// orders and build the candles; orders are placed, canceled and filled with maker/taker fees, all exact, settling
// into the spot wallet or the futures account. Market ticks come from a MarketSource; order and account changes
// happen only through the methods here. No wall clock, no randomness: time comes from the clock.
import { Decimal } from '../../domain/decimal.js';
import type { Balance, Fill, Instrument, Position, PositionSide, Surface, Ticker } from '../../domain/market.js';
import { futuresSide, type Order } from '../../domain/order.js';
import type { TimeSource } from '../../util/clock.js';
import { requestedPositionSide, type OrderRequest, type TriggerOrderRequest } from '../client.js';
import { FOLD_AT, SWEEP_LEVELS, createBook, crossesMarket, depthOf, hasLiveClientOid, priceOf, recordDay, recordTrade, reindex, sizeOf, tapeTrades, tickerOf, type Book, type FuturesFillDetail, type TapeTrade } from './book.js';
import { FundingSchedule } from './funding-schedule.js';
import { FuturesAccount } from './futures-account.js';
import type { SimInstrumentSpec } from './instruments.js';
import type { SymbolMarket } from './market.js';
import { OrderHistory } from './order-history.js';
import { validateOrder, validateTrigger } from './order-validation.js';
import { isRefusal, refusals, type CancelOutcome, type PlaceOutcome } from './refusals.js';
import { toDomainOrder, type SimOrder } from './sim-order.js';
import { SpotWallet } from './spot-wallet.js';
import type { SymbolCandles } from './symbol-candles.js';
import type { TickerView } from './ticker-snapshot.js';

export type { FuturesFillDetail } from './book.js';
export type { CancelOutcome, PlaceOutcome, Refusal } from './refusals.js';
export type { SimOrder } from './sim-order.js';

export interface SimAccounts {
  /** Spot balances by asset. */
  spot: Record<string, string>;
  /** Futures collateral (USDT) and the leverage used for margin. */
  futuresCollateral: string;
  leverage: number;
}

export interface EngineStats {
  ticks: number;
  ordersPlaced: number;
  fills: number;
}

export class MatchingEngine {
  private readonly books = new Map<string, Book>();
  /** The same books by market index: a tick finds its book without a lookup by name. */
  private readonly byIndex: Book[] = [];
  private readonly orderHistory: OrderHistory;
  private readonly spotWallet: SpotWallet;
  private readonly futuresAccount: FuturesAccount;
  private nextSpotId = 700000000000000001n;
  private nextFuturesId = 600000000000000001n;
  private nextFillId = 800000000000000001n;
  readonly stats: EngineStats = { ticks: 0, ordersPlaced: 0, fills: 0 };
  /** Moves on every change to orders, balances or positions: readers may keep what they built while it holds. */
  version = 0;
  /** Called after every fill (journal, reports, tests). */
  onFill: ((fill: Fill, order: SimOrder) => void) | undefined;
  /** When funding settles and at which rates. */
  readonly funding: FundingSchedule;

  constructor(
    markets: SymbolMarket[],
    accounts: SimAccounts,
    private readonly clock: TimeSource,
    /** Final orders and fills kept per symbol for history reads (oldest dropped beyond it). */
    retain = Number.POSITIVE_INFINITY,
    /** The market's seed: funding rates follow it (0 for a replay). */
    seed = 0,
  ) {
    this.funding = new FundingSchedule(seed);
    for (const market of markets) {
      const book = createBook(market);
      this.books.set(market.spec.symbol, book);
      this.byIndex[market.index] = book;
    }
    this.orderHistory = new OrderHistory(retain);
    this.spotWallet = new SpotWallet(accounts.spot);
    this.futuresAccount = new FuturesAccount(accounts.futuresCollateral, accounts.leverage, [...this.books.values()].filter((book) => book.inst.surface === 'futures'));
  }

  // ---------------------------------------------------------------- market ticks

  /** Applies one market tick: statistics, the trade tape, the candles, and any resting or trigger order it reaches. */
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
    if (book.open.length === 0) return;
    // Quick reject: nothing resting is reached by this tick.
    const low = last < market.ask ? last : market.ask;
    const high = last > market.bid ? last : market.bid;
    if (low > book.maxBuyTicks && high < book.minSellTicks && last < book.minTriggerUpTicks && last > book.maxTriggerDownTicks) return;
    this.matchResting(book);
  }

  private matchResting(book: Book): void {
    const market = book.m;
    let changed = false;
    for (const order of [...book.open]) {
      if (order.isTrigger && order.status === 'untriggered') {
        if (order.triggerUp ? market.last >= order.triggerTicks! : market.last <= order.triggerTicks!) {
          this.fire(book, order);
          changed = true;
        }
        continue;
      }
      if (order.priceTicks === null || order.status !== 'open') continue;
      const limitTicks = order.priceTicks;
      // What the tick offers at the order's price: the top of the book when the market crossed it, the trade when it met it.
      let availableSteps = 0;
      if (order.side === 'buy') {
        if (market.ask <= limitTicks || market.last < limitTicks) availableSteps = market.topSize;
        else if (market.last === limitTicks) availableSteps = market.tradeSize;
      } else {
        if (market.bid >= limitTicks || market.last > limitTicks) availableSteps = market.topSize;
        else if (market.last === limitTicks) availableSteps = market.tradeSize;
      }
      if (availableSteps === 0) continue;
      this.fill(book, order, limitTicks, Math.min(availableSteps, order.sizeSteps - order.filledSteps), false);
      if (order.filledSteps === order.sizeSteps) this.finish(book, order, 'filled');
      changed = true;
    }
    if (changed) {
      this.version++;
      reindex(book);
    }
  }

  /** A trigger order reached: it goes live as a taker, unless its margin (or position, for a close) is not there. */
  private fire(book: Book, order: SimOrder): void {
    order.status = 'open';
    order.updatedAtMs = order.firedAtMs = this.clock.now();
    if (this.futuresAccount.refusesFiring(book, order)) {
      this.finish(book, order, 'canceled');
      return;
    }
    this.takeLiquidity(book, order);
  }

  // ---------------------------------------------------------------- orders

  private newOrder(book: Book, req: OrderRequest, ticks: number | null, steps: number): SimOrder {
    const nowMs = this.clock.now();
    const surface = book.inst.surface;
    const id = surface === 'spot' ? this.nextSpotId++ : this.nextFuturesId++;
    return {
      orderId: id.toString(), clientOid: req.clientOid, surface, symbol: book.inst.symbol, side: req.side,
      positionSide: surface === 'futures' ? requestedPositionSide(req) : null,
      reduceOnly: surface === 'futures' ? (req.reduceOnly ?? false) : false,
      kind: req.kind, tif: req.kind === 'market' ? 'ioc' : req.timeInForce, priceTicks: ticks, sizeSteps: steps, filledSteps: 0,
      filledValue: Decimal.ZERO, fee: Decimal.ZERO, status: 'open', createdAtMs: nowMs, updatedAtMs: nowMs,
      reserved: Decimal.ZERO, triggerTicks: null, triggerUp: false, isTrigger: false, firedAtMs: null,
    };
  }

  /** Places a batch; each item stands alone (one refused item does not affect the others). */
  place(surface: Surface, symbol: string, reqs: OrderRequest[]): PlaceOutcome[] {
    this.version++;
    const book = this.books.get(symbol);
    return reqs.map((req): PlaceOutcome => {
      if (!book || book.inst.surface !== surface) return { ok: false, refusal: refusals.symbol(surface, symbol) };
      const checked = validateOrder(book, req);
      if (isRefusal(checked)) return { ok: false, refusal: checked };
      if (hasLiveClientOid(book, req.clientOid)) return { ok: false, refusal: refusals.failed(surface, `duplicate client id ${req.clientOid}`) };
      if (surface === 'futures' && req.side !== futuresSide(requestedPositionSide(req), req.reduceOnly ?? false)) {
        return { ok: false, refusal: refusals.futuresParam('type: side does not match the position') };
      }
      const order = this.newOrder(book, req, checked.ticks, checked.steps);
      if (order.tif === 'post_only' && crossesMarket(book, order)) return { ok: false, refusal: refusals.failed(surface, 'post only order would take liquidity') };
      const refusal = surface === 'spot' ? this.spotWallet.reserve(book, order) : this.futuresAccount.check(book, order);
      if (refusal) return { ok: false, refusal };
      this.stats.ordersPlaced++;
      this.orderHistory.remember(book, order);
      book.open.push(order);
      this.takeLiquidity(book, order);
      reindex(book);
      return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
    });
  }

  /** Taker part of an order: sweeps the levels it reaches; then the rest rests, or is canceled (ioc, market), or the whole order is (fok). */
  private takeLiquidity(book: Book, order: SimOrder): void {
    const market = book.m;
    const direction = order.side === 'buy' ? 1 : -1;
    const bestTicks = order.side === 'buy' ? market.ask : market.bid;
    const limitTicks = order.priceTicks ?? bestTicks + direction * (SWEEP_LEVELS - 1);
    const levels: Array<[ticks: number, steps: number]> = [];
    let fillableSteps = 0;
    for (let level = 0; level < SWEEP_LEVELS; level++) {
      const ticks = bestTicks + direction * level;
      if (direction * (ticks - limitTicks) > 0) break;
      const steps = Math.min(market.topSize, order.sizeSteps - order.filledSteps - fillableSteps);
      if (steps <= 0) break;
      levels.push([ticks, steps]);
      fillableSteps += steps;
    }
    if (order.tif === 'fok' && order.filledSteps + fillableSteps < order.sizeSteps) {
      this.finish(book, order, 'canceled');
      return;
    }
    for (const [ticks, steps] of levels) this.fill(book, order, ticks, steps, true);
    if (order.filledSteps === order.sizeSteps) this.finish(book, order, 'filled');
    else if (order.tif === 'ioc' || order.tif === 'fok' || order.kind === 'market') this.finish(book, order, 'canceled');
  }

  private finish(book: Book, order: SimOrder, status: 'filled' | 'canceled'): void {
    order.status = status;
    order.updatedAtMs = this.clock.now();
    const i = book.open.indexOf(order);
    if (i >= 0) book.open.splice(i, 1);
    if (order.surface === 'spot') this.spotWallet.release(book, order);
  }

  private fill(book: Book, order: SimOrder, ticks: number, steps: number, taker: boolean): void {
    this.version++;
    const price = priceOf(book, ticks);
    const size = sizeOf(book, steps);
    const amount = price.mul(size);
    const fee = amount.mul(taker ? book.inst.takerFeeRate : book.inst.makerFeeRate);
    const nowMs = this.clock.now();
    order.filledSteps += steps;
    order.filledValue = order.filledValue.add(amount);
    order.fee = order.fee.add(fee);
    order.updatedAtMs = nowMs;
    let pnl: Decimal | undefined;
    if (order.surface === 'spot') this.spotWallet.settle(book, order, size, amount, fee);
    else pnl = this.futuresAccount.settle(book, order, size, amount, fee, nowMs);
    const fill: Fill = { symbol: book.inst.symbol, orderId: order.orderId, fillId: (this.nextFillId++).toString(), side: order.side, price, size, amount, fee, timestampMs: nowMs };
    this.orderHistory.recordFill(book, fill, order.surface === 'futures' ? { taker, positionSide: order.positionSide!, reduceOnly: order.reduceOnly, realizedPnl: pnl ?? null } : undefined);
    this.stats.fills++;
    this.onFill?.(fill, order);
  }

  // ---------------------------------------------------------------- triggers

  placeTrigger(req: TriggerOrderRequest): PlaceOutcome {
    this.version++;
    const book = this.books.get(req.symbol);
    if (!book || book.inst.surface !== 'futures') return { ok: false, refusal: refusals.symbol('futures', req.symbol) };
    const side = futuresSide(req.positionSide, req.reduceOnly);
    const orderReq: OrderRequest = {
      clientOid: req.clientOid, side, kind: req.executePrice ? 'limit' : 'market', timeInForce: 'gtc', size: req.size,
      positionSide: req.positionSide, reduceOnly: req.reduceOnly, ...(req.executePrice ? { price: req.executePrice } : {}),
    };
    const checked = validateTrigger(book, orderReq, req.triggerPrice);
    if (isRefusal(checked)) return { ok: false, refusal: checked };
    if (hasLiveClientOid(book, req.clientOid)) return { ok: false, refusal: refusals.failed('futures', `duplicate client id ${req.clientOid}`) };
    const order = this.newOrder(book, orderReq, checked.ticks, checked.steps);
    order.isTrigger = true;
    order.status = 'untriggered';
    order.triggerTicks = checked.trigger;
    // Fires when the last price reaches the trigger from the side it is on now.
    order.triggerUp = checked.trigger > book.m.last;
    this.stats.ordersPlaced++;
    this.orderHistory.remember(book, order);
    book.open.push(order);
    if (checked.trigger === book.m.last) this.fire(book, order);
    reindex(book);
    return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
  }

  cancelTrigger(symbol: string, orderId: string): CancelOutcome {
    this.version++;
    const order = this.orderHistory.get(orderId);
    const book = this.books.get(symbol);
    if (!book || !order || !order.isTrigger || order.symbol !== symbol || order.status !== 'untriggered') {
      return { ok: false, orderId, clientOid: order?.clientOid ?? null, refusal: refusals.notFound('futures') };
    }
    this.finish(book, order, 'canceled');
    reindex(book);
    return { ok: true, orderId, clientOid: order.clientOid };
  }

  // ---------------------------------------------------------------- cancels

  cancel(surface: Surface, symbol: string, by: { orderIds?: string[]; clientOids?: string[] }): CancelOutcome[] {
    this.version++;
    const book = this.books.get(symbol);
    const keys = by.orderIds ? by.orderIds.map((orderId) => ({ orderId, clientOid: null as string | null })) : (by.clientOids ?? []).map((clientOid) => ({ orderId: null as string | null, clientOid }));
    const out = keys.map((key): CancelOutcome => {
      const order = key.orderId !== null ? this.orderHistory.get(key.orderId) : book?.open.find((x) => x.clientOid === key.clientOid && !x.isTrigger);
      if (!book || !order || order.symbol !== symbol || order.surface !== surface || order.isTrigger || (order.status !== 'open' && order.status !== 'pending')) {
        return { ok: false, orderId: key.orderId, clientOid: key.clientOid, refusal: refusals.notFound(surface) };
      }
      this.finish(book, order, 'canceled');
      return { ok: true, orderId: order.orderId, clientOid: order.clientOid };
    });
    if (book) reindex(book);
    return out;
  }

  cancelAll(surface: Surface, symbol: string): CancelOutcome[] {
    this.version++;
    const book = this.books.get(symbol);
    if (!book || book.inst.surface !== surface) return [];
    const ids = book.open.filter((order) => !order.isTrigger && order.status === 'open').map((order) => order.orderId);
    return this.cancel(surface, symbol, { orderIds: ids });
  }

  // ---------------------------------------------------------------- reads

  /** A symbol's book (tests and accounting checks read its instrument and market). */
  book(symbol: string): Book | undefined {
    return this.books.get(symbol);
  }

  private booksOf(surface: Surface): Book[] {
    return [...this.books.values()].filter((book) => book.inst.surface === surface);
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

  positions(symbol: string): Position[] {
    const book = this.books.get(symbol);
    if (!book || book.inst.surface !== 'futures') return [];
    return this.futuresAccount.positions(book);
  }

  /** Realised PnL of a position side since the start (for reports and accounting checks). */
  realized(symbol: string, side: PositionSide): Decimal {
    return this.books.get(symbol)?.positions[side].realized ?? Decimal.ZERO;
  }
}
