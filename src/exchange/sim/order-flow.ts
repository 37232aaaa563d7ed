// How orders live in the simulator, for the matching engine and the modules acting for it (EngineOps): made,
// admitted to the book, matched by market ticks, fired when triggered, filled as maker or taker with exact fees
// settling into the spot wallet or the futures account, and finished. Ids are the venue's large integers, digit for
// digit. The engine (engine.ts) stays the entry point: nothing else calls these.
import { Decimal } from '../../domain/decimal.js';
import type { Fill } from '../../domain/market.js';
import type { TimeSource } from '../../util/clock.js';
import { requestedPositionSide, type OrderRequest } from '../client.js';
import { SWEEP_LEVELS, displayedAt, priceOf, reindex, sizeOf, type Book, type FillModel } from './book.js';
import type { EngineOps } from './engine-ops.js';
import type { FuturesAccount } from './futures-account.js';
import type { FuturesLedger } from './futures-ledger.js';
import type { OrderHistory } from './order-history.js';
import type { SimOrder } from './sim-order.js';
import type { SpotWallet } from './spot-wallet.js';

/** Counts of what the engine did (reports, the simulator's stats). */
export interface EngineStats {
  ticks: number;
  ordersPlaced: number;
  fills: number;
}

/** How orders live: the engine's and, as EngineOps, the futures modules' one way to make, fill and finish them. */
export class OrderFlow implements EngineOps {
  private nextSpotId = 700000000000000001n;
  private nextFuturesId = 600000000000000001n;
  private nextFillId = 800000000000000001n;
  readonly stats: EngineStats = { ticks: 0, ordersPlaced: 0, fills: 0 };
  /** Moves on every change to orders, balances or positions: readers may keep what they built while it holds. */
  version = 0;
  /** Called after every fill (journal, reports, tests). */
  onFill: ((fill: Fill, order: SimOrder) => void) | undefined;
  /** How resting orders fill (config sim.fills). */
  fillModel: FillModel = 'touch';
  /** Told of every futures fill once settled, with its realised PnL (the futures desk books it). */
  afterFuturesFill: ((book: Book, order: SimOrder, pnl: Decimal | undefined, fee: Decimal, nowMs: number) => void) | undefined;

  constructor(
    readonly clock: TimeSource,
    readonly account: FuturesAccount,
    readonly ledger: FuturesLedger,
    private readonly history: OrderHistory,
    private readonly spotWallet: SpotWallet,
    private readonly books: ReadonlyMap<string, Book>,
    private readonly futures: readonly Book[],
  ) {}

  futuresBooks(): readonly Book[] {
    return this.futures;
  }

  futuresBook(symbol: string): Book | undefined {
    const book = this.books.get(symbol);
    return book?.inst.surface === 'futures' ? book : undefined;
  }

  order(orderId: string): SimOrder | undefined {
    return this.history.get(orderId);
  }

  changed(book: Book): void {
    this.version++;
    reindex(book);
  }

  /** Fills and fires what the market's latest tick reaches on the book. */
  matchResting(book: Book): void {
    const market = book.m;
    let changed = false;
    for (const order of [...book.open]) {
      if (order.isTrigger && order.status === 'untriggered') {
        const ticks = order.triggerOnMark ? book.markTicks : market.last;
        if (order.triggerUp ? ticks >= order.triggerTicks! : ticks <= order.triggerTicks!) {
          this.fire(book, order);
          changed = true;
        }
        continue;
      }
      if (order.priceTicks === null || order.status !== 'open') continue;
      const availableSteps = this.makerAvailable(book, order, order.priceTicks);
      if (availableSteps === 0) continue;
      changed = true;
      let steps = Math.min(availableSteps, order.sizeSteps - order.filledSteps);
      if (order.reduceOnly) {
        // A close never exceeds what is left of the position; one finding none left is canceled.
        const room = this.account.positionSteps(book, order.positionSide!);
        if (room === 0) {
          this.finish(book, order, 'canceled');
          continue;
        }
        if (steps > room) steps = room;
      }
      this.fill(book, order, order.priceTicks, steps, false);
      if (order.filledSteps === order.sizeSteps) this.finish(book, order, 'filled');
      else if (order.reduceOnly && book.positions[order.positionSide!].size.isZero()) this.finish(book, order, 'canceled');
    }
    if (changed) {
      this.version++;
      reindex(book);
    }
  }

  /**
   * What the latest tick offers a resting order at its price, by the fill model (FillModel): the top of the book
   * when the market went through its price; at its price, the trade's size (touch), what is left of the trade once
   * the queue ahead has been used up (queue), or nothing (through).
   */
  private makerAvailable(book: Book, order: SimOrder, limitTicks: number): number {
    const market = book.m;
    const buy = order.side === 'buy';
    const through = buy ? market.ask < limitTicks || market.last < limitTicks : market.bid > limitTicks || market.last > limitTicks;
    if (through) return market.topSize;
    const crossedAt = buy ? market.ask === limitTicks : market.bid === limitTicks;
    const tradedAt = market.last === limitTicks;
    if (this.fillModel === 'through' || (!crossedAt && !tradedAt)) return 0;
    if (this.fillModel === 'touch') return crossedAt ? market.topSize : market.tradeSize;
    // Queue: what was ahead is no more than the level shows now (orders ahead canceled, the best moved past it);
    // a trade at the price uses it up first.
    let ahead = Math.min(order.queueAheadSteps ?? 0, displayedAt(book, order.side, limitTicks));
    let available = tradedAt ? market.tradeSize : 0;
    const used = Math.min(ahead, available);
    ahead -= used;
    available -= used;
    order.queueAheadSteps = ahead;
    if (ahead > 0) return 0;
    // Nothing left ahead: the opposite side quoting at the price meets the order as under touch.
    return crossedAt ? market.topSize : available;
  }

  /** An order that rests after its taker part: under the queue model, at the back of what its price level displays. */
  joinQueue(book: Book, order: SimOrder): void {
    if (this.fillModel !== 'queue' || order.status !== 'open' || order.priceTicks === null) return;
    order.queueAheadSteps = displayedAt(book, order.side, order.priceTicks);
  }

  /**
   * A trigger order reached: it goes live as a taker, unless its margin (or position, for a close) is not there. A
   * position's TP/SL closes what it can: its size, or the position's if smaller (none left: canceled).
   */
  fire(book: Book, order: SimOrder): void {
    order.status = 'open';
    order.updatedAtMs = order.firedAtMs = this.clock.now();
    if (order.role) {
      const room = this.account.positionSteps(book, order.positionSide!);
      if (room === 0) {
        this.finish(book, order, 'canceled');
        return;
      }
      if (order.sizeSteps > room) order.sizeSteps = room;
    } else if (this.account.refusesFiring(book, order)) {
      this.finish(book, order, 'canceled');
      return;
    }
    this.takeLiquidity(book, order);
  }

  /** A new order of the book from a request, not live yet. */
  newOrder(book: Book, req: OrderRequest, ticks: number | null, steps: number): SimOrder {
    const nowMs = this.clock.now();
    const surface = book.inst.surface;
    const id = surface === 'spot' ? this.nextSpotId++ : this.nextFuturesId++;
    return {
      orderId: id.toString(),
      clientOid: req.clientOid,
      surface,
      symbol: book.inst.symbol,
      side: req.side,
      positionSide: surface === 'futures' ? requestedPositionSide(req) : null,
      reduceOnly: surface === 'futures' ? (req.reduceOnly ?? false) : false,
      kind: req.kind,
      tif: req.kind === 'market' ? 'ioc' : req.timeInForce,
      priceTicks: ticks,
      sizeSteps: steps,
      filledSteps: 0,
      filledValue: Decimal.ZERO,
      fee: Decimal.ZERO,
      status: 'open',
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
      reserved: Decimal.ZERO,
      triggerTicks: null,
      triggerUp: false,
      isTrigger: false,
      firedAtMs: null,
    };
  }

  /** Makes a new order live: kept in history, on the book's open list. */
  admit(book: Book, order: SimOrder): void {
    this.stats.ordersPlaced++;
    this.history.remember(book, order);
    book.open.push(order);
  }

  /** Taker part of an order: sweeps the levels it reaches; then the rest rests, or is canceled (ioc, market), or the whole order is (fok). */
  takeLiquidity(book: Book, order: SimOrder): void {
    const market = book.m;
    const direction = order.side === 'buy' ? 1 : -1;
    const bestTicks = order.side === 'buy' ? market.ask : market.bid;
    const limitTicks = order.priceTicks ?? bestTicks + direction * (SWEEP_LEVELS - 1);
    // The levels it reaches, each with the top size: counted first (a fill-or-kill order takes all or nothing), then
    // filled, level by level (worked out again: the same integers, no list of them).
    const top = market.topSize;
    let levels = 0;
    let fillableSteps = 0;
    // A close takes no more than what is left of the position.
    const wanted = order.reduceOnly
      ? Math.min(order.sizeSteps - order.filledSteps, this.account.positionSteps(book, order.positionSide!))
      : order.sizeSteps - order.filledSteps;
    for (let level = 0; level < SWEEP_LEVELS; level++) {
      const ticks = bestTicks + direction * level;
      if (direction * (ticks - limitTicks) > 0) break;
      const steps = Math.min(top, wanted - fillableSteps);
      if (steps <= 0) break;
      levels++;
      fillableSteps += steps;
    }
    if (order.tif === 'fok' && order.filledSteps + fillableSteps < order.sizeSteps) {
      this.finish(book, order, 'canceled');
      return;
    }
    let taken = 0;
    for (let level = 0; level < levels; level++) {
      const steps = Math.min(top, wanted - taken);
      taken += steps;
      this.fill(book, order, bestTicks + direction * level, steps, true);
    }
    if (order.filledSteps === order.sizeSteps) this.finish(book, order, 'filled');
    else if (order.tif === 'ioc' || order.tif === 'fok' || order.kind === 'market') this.finish(book, order, 'canceled');
    else if (order.reduceOnly && book.positions[order.positionSide!].size.isZero()) this.finish(book, order, 'canceled');
    else this.joinQueue(book, order);
  }

  /** Makes an order final: off the book, a spot order's frozen funds given back. */
  finish(book: Book, order: SimOrder, status: 'filled' | 'canceled'): void {
    order.status = status;
    order.updatedAtMs = this.clock.now();
    const i = book.open.indexOf(order);
    if (i >= 0) book.open.splice(i, 1);
    if (order.surface === 'spot') this.spotWallet.release(book, order);
  }

  /** One fill; `feeRate` overrides the maker or taker rate (a liquidation's). Returns the realised PnL of a futures close. */
  fill(book: Book, order: SimOrder, ticks: number, steps: number, taker: boolean, feeRate?: Decimal): Decimal | undefined {
    this.version++;
    const price = priceOf(book, ticks);
    const size = sizeOf(book, steps);
    const amount = price.mul(size);
    const fee = amount.mul(feeRate ?? (taker ? book.inst.takerFeeRate : book.inst.makerFeeRate));
    const nowMs = this.clock.now();
    order.filledSteps += steps;
    order.filledValue = order.filledValue.add(amount);
    order.fee = order.fee.add(fee);
    order.updatedAtMs = nowMs;
    let pnl: Decimal | undefined;
    if (order.surface === 'spot') this.spotWallet.settle(book, order, size, amount, fee);
    else {
      pnl = this.account.settle(book, order, size, amount, fee, nowMs);
      this.afterFuturesFill?.(book, order, pnl, fee, nowMs);
    }
    const fill: Fill = {
      symbol: book.inst.symbol,
      orderId: order.orderId,
      fillId: (this.nextFillId++).toString(),
      side: order.side,
      price,
      size,
      amount,
      fee,
      timestampMs: nowMs,
    };
    const liquidation = order.liquidation === true;
    this.history.recordFill(
      book,
      fill,
      order.surface === 'futures'
        ? {
            taker,
            positionSide: order.positionSide!,
            reduceOnly: order.reduceOnly,
            realizedPnl: pnl ?? null,
            liquidation,
            liquidateFee: liquidation ? fee : null,
          }
        : undefined,
    );
    this.stats.fills++;
    this.onFill?.(fill, order);
    return pnl;
  }
}
