// The ExchangeClient port: the normalised reads and writes the layers above use, whichever adapter (live HTTP
// client or simulated exchange) stands behind it. Writes answer per item: accepted, rejected or unknown.
import type { Decimal } from '../domain/decimal.js';
import type { Balance, Fill, Instrument, Position, PositionSide, PublicTrade, Surface, Ticker } from '../domain/market.js';
import type { OrderSpec } from '../domain/intent.js';
import type { Order } from '../domain/order.js';
import type { ExchangeError } from './errors.js';

/** An order as sent: what a strategy asked for, with the client id the executor gave it. */
export type OrderRequest = OrderSpec & { clientOid: string };

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

/** The venue's answer for one item of a batch (or for the whole request, copied to every item). */
export type ItemResult =
  | { outcome: 'accepted'; clientOid: string | null; orderId: string }
  | { outcome: 'rejected'; clientOid: string | null; orderId: string | null; error: ExchangeError }
  /** No answer we can trust: the venue may have acted. Resolve by query; never re-send blindly. */
  | { outcome: 'unknown'; clientOid: string | null; orderId: string | null; error: ExchangeError };

export interface CancelTarget {
  orderIds?: string[];
  clientOids?: string[];
}

export interface OrderLookup {
  orderId?: string;
  clientOid?: string;
}

export interface ExchangeClient {
  /** Tradable instruments of one surface (S7 / F1). */
  instruments(surface: Surface): Promise<Instrument[]>;
  /** Futures tickers of every contract (F2). */
  tickers(): Promise<Ticker[]>;
  /** Recent public trades of a spot pair (S9). */
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]>;
  /** Orders not yet final. Futures: F5, every page. Spot: S1 pages of one pair, final orders left out. */
  openOrders(surface: Surface, symbol?: string): Promise<Order[]>;
  /** One order by id or client id: spot S3 (any state); futures F5 (open orders only). Null when not found. */
  order(surface: Surface, symbol: string, lookup: OrderLookup): Promise<Order | null>;
  /** The account's spot fills on a pair (S2), newest first. */
  fills(symbol: string, orderId?: string): Promise<Fill[]>;
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
  /** Cancels a futures trigger order (F9). */
  cancelTrigger(symbol: string, orderId: string): Promise<ItemResult>;

  close(): Promise<void>;
}
