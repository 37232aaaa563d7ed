// The ExchangeClient port: the normalised reads and writes the layers above use, whichever adapter (live HTTP
// client or simulated exchange) stands behind it. Writes answer per item: accepted, rejected or unknown.
import type { Decimal } from '../domain/decimal.js';
import type { CandlePriceType, Timeframe, VenueCandle } from '../domain/candles.js';
import type {
  Balance,
  Fill,
  FundingRate,
  FundingSettlement,
  Instrument,
  LedgerEntry,
  LedgerKind,
  OrderBook,
  Position,
  PositionSide,
  PriceIndex,
  PublicTrade,
  Surface,
  Ticker,
} from '../domain/market.js';
import type { OrderSpec } from '../domain/intent.js';
import type { Order } from '../domain/order.js';
import type { ExchangeError } from './errors.js';
import { CANDLE_PERIODS } from './wire/enums.js';

/** An order as sent: what a strategy asked for, with the client id the executor gave it. */
export type OrderRequest = OrderSpec & { clientOid: string };

/** The position a futures request touches: as given, else long for a buy and short for a sell. */
export function requestedPositionSide(req: Pick<OrderRequest, 'positionSide' | 'side'>): PositionSide {
  return req.positionSide ?? (req.side === 'buy' ? 'long' : 'short');
}

export interface TriggerOrderRequest {
  symbol: string;
  clientOid: string;
  positionSide: PositionSide;
  reduceOnly: boolean;
  size: Decimal;
  triggerPrice: Decimal;
  /** Limit price once triggered; absent for a market order. */
  executePrice?: Decimal;
}

/** A position's take-profit or stop-loss (F23): a trigger order closing `size` of the position when reached. */
export interface TpSlRequest {
  symbol: string;
  clientOid: string;
  /** stop-loss: `loss_plan`; take-profit: `profit_plan`. */
  role: 'stop-loss' | 'take-profit';
  positionSide: PositionSide;
  size: Decimal;
  triggerPrice: Decimal;
  /** Limit price once triggered; absent for a market close. */
  executePrice?: Decimal;
}

/** Moves a position's take-profit or stop-loss in place (F24): the trigger (and execute) price; the size stays. */
export interface TpSlChange {
  symbol: string;
  orderId: string;
  triggerPrice: Decimal;
  executePrice?: Decimal;
  /** What the trigger watches: last price (the venue's default) or mark price. */
  triggerPriceType?: 'last' | 'mark';
}

/** One position closed at market by F27: its id, the closing order's id (null when it failed) and the venue's error text. */
export interface PositionCloseResult {
  positionId: string;
  ok: boolean;
  orderId: string | null;
  error: string | null;
}

/** A window of the futures ledger (F30): newest first, `limit` 1–100 (the venue's default 20). */
export interface LedgerQuery {
  symbol?: string;
  kind?: LedgerKind;
  startMs?: number;
  endMs?: number;
  limit?: number;
}

/** The venue's answer for one item of a batch (or for the whole request, copied to every item). */
export type ItemResult =
  | { outcome: 'accepted'; clientOid: string | null; orderId: string }
  | { outcome: 'rejected'; clientOid: string | null; orderId: string | null; error: ExchangeError }
  /** No answer we can trust: the venue may have acted. Resolve by query; never re-send blindly. */
  | { outcome: 'unknown'; clientOid: string | null; orderId: string | null; error: ExchangeError };

/** A failure of the whole request becomes every item's result: unknown if the venue may have acted. */
export function wholeRequestResults(err: ExchangeError, items: Array<{ clientOid: string | null; orderId: string | null }>): ItemResult[] {
  return items.map((item) => (err.outcomeUnknown ? { outcome: 'unknown', ...item, error: err } : { outcome: 'rejected', ...item, error: err }));
}

export interface CancelTarget {
  orderIds?: string[];
  clientOids?: string[];
}

export interface OrderLookup {
  orderId?: string;
  clientOid?: string;
  /**
   * Futures by client id only: the order was created at or after this time (ms), which bounds the history search
   * (F19). The tracker passes the order's creation time less a margin. Without it, history is searched page by page.
   */
  createdAfterMs?: number;
}

/** The timeframes the venue serves candles of on a surface (S10 spot: all; F10 and F11 futures: no 2h, 6h or 8h). */
export function candleTimeframes(surface: Surface): ReadonlySet<Timeframe> {
  return CANDLE_PERIODS[surface === 'spot' ? 'S10' : 'F10'];
}

/**
 * A futures trigger order as F21 / F22 list it: the order (`rawStatus` and `rawType` the venue's digits), its trigger
 * price and when it fired (null: not yet, or not known).
 */
export interface TriggerOrder extends Order {
  triggerPrice: Decimal | null;
  triggeredAtMs: number | null;
}

/** A window of candle history (F11): candles opening from `startMs` to `endMs` (both included), `limit` 1–100. */
export interface CandleWindow {
  startMs: number;
  endMs: number;
  limit?: number;
  priceType?: CandlePriceType;
}

/** A window of trigger-order history (F22). */
export interface TriggerHistoryQuery {
  startMs?: number;
  endMs?: number;
  /** 1–100 (the venue's default 100). */
  limit?: number;
}

export interface ExchangeClient {
  /** Tradable instruments of one surface (S7 / F1). */
  instruments(surface: Surface): Promise<Instrument[]>;
  /** Futures tickers of every contract (F2). */
  tickers(): Promise<Ticker[]>;
  /** Recent public trades of a spot pair (S9). */
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]>;
  /**
   * One symbol's ticker: spot S11 (last price and 24 h figures; the venue's spot ticker has no bid or ask), futures
   * F12 (the F2 fields for one contract).
   */
  ticker(symbol: string): Promise<Ticker>;
  /** The top of a symbol's order book (S13 / F13): `limit` levels a side, 15 (default) or 200. */
  depth(symbol: string, limit?: 15 | 200): Promise<OrderBook>;
  /**
   * The latest candles of a symbol (S10 / F10), oldest first; the last one may still be forming. `limit`: futures
   * 1–1000 (default 100); spot rows the venue chooses (about 300 at most), the newest `limit` of them kept.
   * Refused before sending (ExchangeError 'bad-request', `sent: false`): a timeframe the endpoint lacks (futures has
   * no 2h, 6h or 8h), a `priceType` other than last on spot.
   */
  candles(symbol: string, timeframe: Timeframe, opts?: { limit?: number; priceType?: CandlePriceType }): Promise<VenueCandle[]>;
  /**
   * Futures candle history (F11), oldest first: the rows opening in [startMs, endMs], the newest `limit` (at most
   * 100) of them. Refused before sending like candles(), and so is a spot symbol: spot has no history candles in v2.
   */
  historyCandles(symbol: string, timeframe: Timeframe, window: CandleWindow): Promise<VenueCandle[]>;
  /** Current funding rates (F14): one contract, or every contract when no symbol is given. */
  fundingRates(symbol?: string): Promise<FundingRate[]>;
  /** A contract's next funding settlement time in ms (F15). */
  nextFundingTime(symbol: string): Promise<number>;
  /** A contract's latest settled funding rates (F16), newest first; `limit` 1–100 (default 10). */
  fundingHistory(symbol: string, limit?: number): Promise<FundingSettlement[]>;
  /** A contract's index or mark price (F17). */
  priceIndex(symbol: string, kind: 'index' | 'mark'): Promise<PriceIndex>;
  /** Current futures trigger orders (F21), every page; of one contract when a symbol is given. */
  triggerOrders(symbol?: string): Promise<TriggerOrder[]>;
  /** Futures trigger-order history of one contract (F22): final orders, newest first, one window. */
  triggerOrderHistory(symbol: string, query?: TriggerHistoryQuery): Promise<TriggerOrder[]>;
  /**
   * Orders not yet final. Futures: F5, every page. Spot (a symbol is required): S15 pages of one pair, or S1 order
   * history pages with final orders left out, as configured.
   */
  openOrders(surface: Surface, symbol?: string): Promise<Order[]>;
  /**
   * One order of `symbol`, in any state (open, filled, canceled...), with the venue's status, filled size, average
   * fill price, fee and client id. Spot: S3 by id or client id. Futures: by order id F18; by client id alone F5
   * (open orders), then F19 history of the symbol back to `lookup.createdAfterMs`. Null when the venue does not
   * know the order (an order invisible to reads yet, under read-after-write lag, is null too).
   */
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null>;
  /**
   * The account's fills on a symbol, of one order when `orderId` is given, newest first. Spot: S2 (one page of 100).
   * Futures: F20, pages of 100 while the venue says more exist (price = fillValue / fillSize, exact).
   */
  fills(surface: Surface, symbol: string, orderId?: string): Promise<Fill[]>;
  /** Open futures positions of one contract (F4); zero-size records are left out. */
  positions(symbol: string): Promise<Position[]>;
  /** Balances: spot assets (S8) or futures collateral (F3). */
  balances(surface: Surface): Promise<Balance[]>;

  /** Places a batch on one symbol (S6 / F6); one result per request item, in order. */
  placeOrders(surface: Surface, symbol: string, orders: OrderRequest[]): Promise<ItemResult[]>;
  /** Cancels orders of one symbol (S4 / F7); one result per id given. */
  cancelOrders(surface: Surface, symbol: string, target: CancelTarget): Promise<ItemResult[]>;
  /** Cancels every open order of a symbol: spot S5; futures F7 with the ids of the open orders. */
  cancelAll(surface: Surface, symbol: string): Promise<ItemResult[]>;
  /** Places a futures trigger order (F8). */
  placeTrigger(req: TriggerOrderRequest): Promise<ItemResult>;
  /** Cancels a futures trigger order (F9); a position's take-profit or stop-loss too. */
  cancelTrigger(symbol: string, orderId: string): Promise<ItemResult>;
  /** Places a position's take-profit or stop-loss (F23). */
  placeTpSl(req: TpSlRequest): Promise<ItemResult>;
  /** Moves a position's take-profit or stop-loss in place (F24). */
  modifyTpSl(change: TpSlChange): Promise<ItemResult>;
  /** Places one futures order (F25). */
  placeOrder(symbol: string, order: OrderRequest): Promise<ItemResult>;
  /** Cancels one futures order by id or client id (F26, no symbol sent). */
  cancelOrder(target: { orderId: string } | { clientOid: string }): Promise<ItemResult>;
  /** Closes every position of a contract, or of all contracts, at market (F27); resting orders stay. */
  closePositions(symbol?: string): Promise<PositionCloseResult[]>;
  /** Cancels every futures order of one kind (F28): `normal` orders or `plan` (trigger) orders, of a contract or of all. */
  cancelAllFutures(kind: 'normal' | 'plan', symbol?: string): Promise<ItemResult[]>;
  /** Every open futures position (F29), with mark, unrealised PnL, margin and the estimated liquidation price. */
  allPositions(): Promise<Position[]>;
  /** The futures ledger (F30), one window, newest first; `hasMore`: older entries exist (lower `endMs`). */
  ledger(query?: LedgerQuery): Promise<{ entries: LedgerEntry[]; hasMore: boolean }>;

  close(): Promise<void>;
}
