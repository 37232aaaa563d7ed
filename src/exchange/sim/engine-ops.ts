// What the matching engine lends the modules that act on orders for it (position TP/SL, closing positions,
// cancel-all, liquidation): the order steps it owns, so that every order is made, filled and finished one way.
import type { Decimal } from '../../domain/decimal.js';
import type { TimeSource } from '../../util/clock.js';
import type { OrderRequest } from '../client.js';
import type { Book } from './book.js';
import type { FuturesAccount } from './futures-account.js';
import type { FuturesLedger } from './futures-ledger.js';
import type { SimOrder } from './sim-order.js';

export interface EngineOps {
  readonly clock: TimeSource;
  readonly account: FuturesAccount;
  readonly ledger: FuturesLedger;
  /** The futures books, in the engine's order. */
  futuresBooks(): readonly Book[];
  /** A futures contract's book; undefined for an unknown symbol or a spot pair. */
  futuresBook(symbol: string): Book | undefined;
  /** An order still kept, by id. */
  order(orderId: string): SimOrder | undefined;
  /** A new order of the book (not live yet): price in ticks (null: market), size in steps. */
  newOrder(book: Book, req: OrderRequest, ticks: number | null, steps: number): SimOrder;
  /** Makes a new order live: kept in history, on the book's open list. */
  admit(book: Book, order: SimOrder): void;
  /** The taker part of an order (see the engine). */
  takeLiquidity(book: Book, order: SimOrder): void;
  /** A trigger order reached: it goes live. */
  fire(book: Book, order: SimOrder): void;
  /** Makes an order final and takes it off the book. */
  finish(book: Book, order: SimOrder, status: 'filled' | 'canceled'): void;
  /** One fill of `steps` at `ticks`, its fee at `feeRate` (default: the maker or taker rate); the realised PnL of a close. */
  fill(book: Book, order: SimOrder, ticks: number, steps: number, taker: boolean, feeRate?: Decimal): Decimal | undefined;
  /** After changes to a book's orders: new state version, quick-reject bounds rebuilt. */
  changed(book: Book): void;
}
