// The ExchangeClient port: the normalised reads (and, later, writes) the layers above use, whichever adapter
// (live HTTP client or simulated exchange) stands behind it.
import type { Balance, Instrument, Position, PublicTrade, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';

export interface ExchangeClient {
  /** Tradable instruments of one surface (S7 / F1). */
  instruments(surface: Surface): Promise<Instrument[]>;
  /** Futures tickers of every contract (F2). */
  tickers(): Promise<Ticker[]>;
  /** Recent public trades of a spot pair (S9). */
  recentTrades(symbol: string, limit?: number): Promise<PublicTrade[]>;
  /** Orders not yet final. Futures: F5, every page. Spot: S1 pages of one pair, final orders left out. */
  openOrders(surface: Surface, symbol?: string): Promise<Order[]>;
  /** Open futures positions of one contract (F4); zero-size records are left out. */
  positions(symbol: string): Promise<Position[]>;
  /** Balances: spot assets (S8) or futures collateral (F3). */
  balances(surface: Surface): Promise<Balance[]>;
  close(): Promise<void>;
}
