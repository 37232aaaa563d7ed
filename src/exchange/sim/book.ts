// One symbol's state in the simulator: instrument and market, live orders with their quick-reject bounds, the
// public trade tape and candles, the day's figures, kept fills and orders, the two futures position sides, the
// mark model and when the futures side of a tick needs a look. Prices are integer ticks and sizes integer steps of
// the instrument; they become decimals only here (priceOf, sizeOf) and in reads.
import { Decimal } from '../../domain/decimal.js';
import type { Fill, Instrument, PositionSide, Ticker } from '../../domain/market.js';
import { toInstrument, type SimInstrumentSpec } from './instruments.js';
import type { SymbolMarket } from './market.js';
import { MarkModel } from './mark-model.js';
import type { SimOrder } from './sim-order.js';
import { SymbolCandles } from './symbol-candles.js';
import { TickerSnapshot, type TickerView } from './ticker-snapshot.js';

/** How deep a taker sweeps: levels beyond the best, one tick apart, each with the top size. */
export const SWEEP_LEVELS = 5;

/**
 * How a resting (maker) order fills (config sim.fills; docs/fills.md works an example of each):
 * - `touch`: when the market reaches its price: a trade at it fills up to the trade's size, a trade or quote through
 *   it up to the top size. The most generous: it assumes the order was first in line.
 * - `queue`: it joins the back of the size displayed at its price (the depth the venue shows) and fills at its price
 *   only once trades there have used up what was ahead of it; a trade or quote through its price fills it as touch.
 * - `through`: only a trade or quote past its price fills it; a trade at its price never does. The most conservative.
 */
export type FillModel = 'touch' | 'queue' | 'through';

/** The size displayed at `ticks` on the side of a resting order (depthOf's levels): 0 inside the spread. */
export function displayedAt(book: Book, side: 'buy' | 'sell', ticks: number): number {
  const market = book.m;
  const behind = side === 'buy' ? market.bid - ticks : ticks - market.ask;
  return behind < 0 ? 0 : market.topSize * (1 + Math.floor(behind / SWEEP_LEVELS));
}
/** Trades kept on a symbol's public tape (spot S9 reads the newest). */
const TRADE_RING = 1000;
/** volTickSteps is folded into volFolded above this, well inside the safe-integer range. */
export const FOLD_AT = 2 ** 50;

/**
 * One futures position side; open value and fees are what the open part cost, realised PnL is since the start. The
 * position id and the figures below it belong to the position opened last (reset when a flat side opens again).
 * Funding is a change of collateral: negative when paid.
 */
export interface PositionState {
  size: Decimal;
  openValue: Decimal;
  openFee: Decimal;
  realized: Decimal;
  updatedAtMs: number;
  /** '' while the side has never been open. */
  positionId: string;
  createdAtMs: number;
  /** The latest settlement's funding, and the sum over the position's life. */
  fundingFee: Decimal;
  cumFundingFee: Decimal;
  cumLiquidateFee: Decimal;
  cumOpenSize: Decimal;
  cumOpenValue: Decimal;
  cumOpenFee: Decimal;
  cumCloseSize: Decimal;
  cumCloseValue: Decimal;
  cumCloseFee: Decimal;
}

/** What a futures fill record (F20) carries beyond the domain Fill. */
export interface FuturesFillDetail {
  taker: boolean;
  positionSide: PositionSide;
  reduceOnly: boolean;
  /** Realised PnL of a closing fill (fees apart); null for an opening one. */
  realizedPnl: Decimal | null;
  /** A liquidation close (F20 `liquidateType` FORCE_LIQUIDATE); its fee is the liquidation fee (null otherwise). */
  liquidation: boolean;
  liquidateFee: Decimal | null;
}

export interface Book {
  inst: Instrument;
  spec: SimInstrumentSpec;
  /** The symbol's market, updated in place by its source on every tick. */
  m: SymbolMarket;
  /** Live orders (open, and untriggered triggers), in placement order. */
  open: SimOrder[];
  /** Quick-reject bounds over `open` (see reindex): a tick that reaches none of them touches no order. */
  maxBuyTicks: number;
  minSellTicks: number;
  minTriggerUpTicks: number;
  maxTriggerDownTicks: number;
  /** The same for trigger orders that watch the mark (compared with `markTicks`). */
  minMarkUpTicks: number;
  maxMarkDownTicks: number;
  /** Index and mark model of the symbol; the mark as of the latest watched tick (see watchFromMs). */
  mark: MarkModel;
  markTicks: number;
  /** Futures: the next funding settlement (Infinity for spot). */
  nextFundingMs: number;
  /**
   * A tick at or after this time needs the futures side (mark, funding, liquidation): -Infinity while a position is
   * open or a trigger watches the mark, else the next funding settlement (Infinity for spot). One comparison per tick.
   */
  watchFromMs: number;
  /**
   * The "24 h" figures, which are the figures since the first tick (the simulator's day starts with it): first
   * price and its time (-1: no tick yet), high and low with their times, volumes.
   */
  firstTicks: number;
  firstTs: number;
  highTicks: number;
  highTs: number;
  lowTicks: number;
  lowTs: number;
  volSteps: number;
  /** Sum of price ticks × size steps; folded into volFolded before it leaves the safe-integer range. */
  volTickSteps: number;
  volFolded: bigint;
  /** Ring buffer of recent public trades (spot S9): columns, so recording a trade allocates nothing. */
  tradeTsMs: Float64Array;
  tradePriceTicks: Float64Array;
  tradeSizeSteps: Float64Array;
  tradeBuyerMaker: Uint8Array;
  tradeHead: number;
  tradeCount: number;
  candles: SymbolCandles;
  fills: Fill[];
  /** The same fills by order, oldest first (lookups by order are per order, not per book); trimmed with `fills`. */
  fillsByOrder: Map<string, Fill[]>;
  /** Futures fills only, by fill id; dropped with their fill. */
  fillDetails: Map<string, FuturesFillDetail>;
  /** Every order still kept, oldest first (see OrderHistory for the bound). */
  history: SimOrder[];
  /** Sizes of a few steps as decimals, by steps (sizeOf): orders repeat their sizes, and a decimal never changes. */
  sizes: Decimal[];
  positions: { long: PositionState; short: PositionState };
}

/** A book for a market; `mark` its mark model (default: mark = index). */
export function createBook(market: SymbolMarket, mark: MarkModel = new MarkModel(0, market.spec.symbol, 0)): Book {
  const book: Book = {
    inst: toInstrument(market.spec),
    spec: market.spec,
    m: market,
    open: [],
    maxBuyTicks: -Infinity,
    minSellTicks: Infinity,
    minTriggerUpTicks: Infinity,
    maxTriggerDownTicks: -Infinity,
    minMarkUpTicks: Infinity,
    maxMarkDownTicks: -Infinity,
    mark,
    markTicks: 0,
    nextFundingMs: Infinity,
    watchFromMs: Infinity,
    firstTicks: market.last,
    firstTs: -1,
    highTicks: market.last,
    highTs: market.ts,
    lowTicks: market.last,
    lowTs: market.ts,
    volSteps: 0,
    volTickSteps: 0,
    volFolded: 0n,
    tradeTsMs: new Float64Array(TRADE_RING),
    tradePriceTicks: new Float64Array(TRADE_RING),
    tradeSizeSteps: new Float64Array(TRADE_RING),
    tradeBuyerMaker: new Uint8Array(TRADE_RING),
    tradeHead: 0,
    tradeCount: 0,
    candles: new SymbolCandles(market.past),
    fills: [],
    fillsByOrder: new Map(),
    fillDetails: new Map(),
    history: [],
    sizes: [],
    positions: { long: emptyPosition(), short: emptyPosition() },
  };
  // The market's opening tick starts the day, the trade tape and the candles.
  if (market.ticks > 0) {
    book.firstTs = market.ts;
    recordTrade(book, market);
    book.candles.onTick(market.ts, market.last, market.tradeSize);
  }
  return book;
}

/** Applies a tick's last price to the day's figures: the first tick opens the day. */
export function recordDay(book: Book, market: SymbolMarket): void {
  const last = market.last;
  if (book.firstTs < 0) {
    book.firstTs = book.highTs = book.lowTs = market.ts;
    book.firstTicks = book.highTicks = book.lowTicks = last;
  } else if (last > book.highTicks) {
    book.highTicks = last;
    book.highTs = market.ts;
  } else if (last < book.lowTicks) {
    book.lowTicks = last;
    book.lowTs = market.ts;
  }
}

function emptyPosition(): PositionState {
  const zero = Decimal.ZERO;
  return {
    size: zero,
    openValue: zero,
    openFee: zero,
    realized: zero,
    updatedAtMs: 0,
    positionId: '',
    createdAtMs: 0,
    fundingFee: zero,
    cumFundingFee: zero,
    cumLiquidateFee: zero,
    cumOpenSize: zero,
    cumOpenValue: zero,
    cumOpenFee: zero,
    cumCloseSize: zero,
    cumCloseValue: zero,
    cumCloseFee: zero,
  };
}

/** Whether either position side of the book is open. */
export function hasPosition(book: Book): boolean {
  return !book.positions.long.size.isZero() || !book.positions.short.size.isZero();
}

/** Sets when the next tick needs the futures side (see Book.watchFromMs). */
export function rewatch(book: Book): void {
  if (book.inst.surface !== 'futures') book.watchFromMs = Infinity;
  else book.watchFromMs = hasPosition(book) || book.minMarkUpTicks !== Infinity || book.maxMarkDownTicks !== -Infinity ? -Infinity : book.nextFundingMs;
}

/** Puts the market's latest trade on the tape, over the oldest one when the ring is full. */
export function recordTrade(book: Book, market: SymbolMarket): void {
  const head = book.tradeHead;
  book.tradeTsMs[head] = market.ts;
  book.tradePriceTicks[head] = market.last;
  book.tradeSizeSteps[head] = market.tradeSize;
  book.tradeBuyerMaker[head] = market.buyerMaker ? 1 : 0;
  book.tradeHead = (head + 1) % TRADE_RING;
  if (book.tradeCount < TRADE_RING) book.tradeCount++;
}

/** Recomputes the quick-reject bounds of a book from its live orders, and when its ticks need the futures side. */
export function reindex(book: Book): void {
  book.maxBuyTicks = -Infinity;
  book.minSellTicks = Infinity;
  book.minTriggerUpTicks = Infinity;
  book.maxTriggerDownTicks = -Infinity;
  book.minMarkUpTicks = Infinity;
  book.maxMarkDownTicks = -Infinity;
  for (const order of book.open) {
    if (order.status === 'untriggered') {
      if (order.triggerOnMark) {
        if (order.triggerUp) book.minMarkUpTicks = Math.min(book.minMarkUpTicks, order.triggerTicks!);
        else book.maxMarkDownTicks = Math.max(book.maxMarkDownTicks, order.triggerTicks!);
      } else if (order.triggerUp) book.minTriggerUpTicks = Math.min(book.minTriggerUpTicks, order.triggerTicks!);
      else book.maxTriggerDownTicks = Math.max(book.maxTriggerDownTicks, order.triggerTicks!);
    } else if (order.priceTicks !== null) {
      if (order.side === 'buy') book.maxBuyTicks = Math.max(book.maxBuyTicks, order.priceTicks);
      else book.minSellTicks = Math.min(book.minSellTicks, order.priceTicks);
    }
  }
  rewatch(book);
}

/** Whether a live order of the book carries the client id (the venue refuses a second one). */
export function hasLiveClientOid(book: Book, clientOid: string): boolean {
  const open = book.open;
  for (let i = 0; i < open.length; i++) if (open[i]!.clientOid === clientOid) return true;
  return false;
}

/** Whether the order would take liquidity now: a market order always; a limit order priced at or through the far side. */
export function crossesMarket(book: Book, order: SimOrder): boolean {
  if (order.priceTicks === null) return true;
  return order.side === 'buy' ? order.priceTicks >= book.m.ask : order.priceTicks <= book.m.bid;
}

export function priceOf(book: Book, ticks: number): Decimal {
  return Decimal.ofSteps(ticks, book.inst.tickSize);
}

/** Sizes below this many steps are kept once made (see Book.sizes). */
const KEPT_SIZES = 1024;

export function sizeOf(book: Book, steps: number): Decimal {
  if (steps >= 0 && steps < KEPT_SIZES && Number.isInteger(steps)) return (book.sizes[steps] ??= Decimal.ofSteps(steps, book.inst.stepSize));
  return Decimal.ofSteps(steps, book.inst.stepSize);
}

export interface TapeTrade {
  tradeId: string;
  ts: number;
  price: Decimal;
  size: Decimal;
  buyerMaker: boolean;
}

/** The newest `limit` trades of the tape, newest first; a trade's id is the symbol and its tick's sequence number. */
export function tapeTrades(book: Book, limit: number): TapeTrade[] {
  const out: TapeTrade[] = [];
  const count = Math.min(limit, book.tradeCount);
  for (let back = 0; back < count; back++) {
    const slot = (book.tradeHead - 1 - back + TRADE_RING) % TRADE_RING;
    const seq = book.m.ticks - back;
    out.push({
      tradeId: `${book.inst.symbol}-${seq}`,
      ts: book.tradeTsMs[slot]!,
      price: priceOf(book, book.tradePriceTicks[slot]!),
      size: sizeOf(book, book.tradeSizeSteps[slot]!),
      buyerMaker: book.tradeBuyerMaker[slot] === 1,
    });
  }
  return out;
}

/** The book's ticker now, in one of the venue's views (mark and index from its mark model). */
export function tickerOf(book: Book, view: TickerView): Ticker {
  const market = book.m;
  return new TickerSnapshot(
    book.inst.symbol,
    market.ts,
    market.last,
    market.bid,
    market.ask,
    book.mark.markTicks(market),
    book.mark.indexTicks(market),
    book.highTicks,
    book.lowTicks,
    book.volSteps,
    book.volTickSteps,
    book.volFolded,
    book.inst,
    view,
  );
}

/**
 * The top of the book as the venue's depth shows it (S13 / F13): the market's best bid and ask with the size resting
 * there, then deeper levels one tick apart. The levels a taker sweeps (SWEEP_LEVELS) carry the top size, which is
 * what the engine fills there; each further run of SWEEP_LEVELS levels one more top size. Prices stay above zero.
 * Our own resting orders are not in it (the simulated market does not see them).
 */
export function depthOf(book: Book, levels: number): { bids: Array<[ticks: number, steps: number]>; asks: Array<[ticks: number, steps: number]> } {
  const market = book.m;
  const bids: Array<[number, number]> = [];
  const asks: Array<[number, number]> = [];
  // A market that has not ticked yet (a paper venue before its first followed price) has no book.
  if (market.bid <= 0 || market.ask <= 0) return { bids, asks };
  for (let k = 0; k < levels; k++) {
    const steps = market.topSize * (1 + Math.floor(k / SWEEP_LEVELS));
    if (market.bid - k > 0) bids.push([market.bid - k, steps]);
    asks.push([market.ask + k, steps]);
  }
  return { bids, asks };
}
