// The one table of polls: for each market-data poll, its period key, the endpoints one cycle reads on each surface
// (once per surface or once per symbol, paged or not) and what it yields. The live streams, the polling-plan
// check and the backtest's virtual polls all read it.
import type { Balance, Position, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';

/** The key of `daemon.polls` that sets a poll's period. */
export type PollPeriodKey = 'tickersMs' | 'ordersMs' | 'balancesMs' | 'positionsMs';

/** What each poll yields. */
export interface PollValues {
  tickers: Map<string, Ticker>;
  orders: Order[];
  balances: Balance[];
  positions: Position[];
}

export type PollName = keyof PollValues;

/** The spot open-orders source (config `exchange.spotOpenOrders`). */
export type SpotOpenOrders = 'S15' | 'S1';

/** The endpoints polls read (ids of exchange/endpoints.ts, whose weights the plan and the meters look up). */
export type PollEndpoint = 'F2' | 'S9' | 'F5' | SpotOpenOrders | 'F3' | 'S8' | 'F4';

/** One endpoint a poll reads: `'spot-open-orders'` stands for the configured spot source. */
export interface PollRead {
  surface: Surface;
  endpoint: Exclude<PollEndpoint, SpotOpenOrders> | 'spot-open-orders';
  /** Read once per cycle for the surface, or once per symbol of it. */
  per: 'surface' | 'symbol';
  /** A listing walked page by page (open orders). */
  paged?: boolean;
}

export interface PollSpec {
  name: PollName;
  periodKey: PollPeriodKey;
  /** What one cycle reads, in the order it reads and yields them (a surface without symbols reads nothing). */
  reads: readonly PollRead[];
}

/** The polls, in the order the plan lists them. */
export const POLLS: readonly PollSpec[] = [
  // A spot pair has no ticker endpoint: its last public trade (S9) stands in for one.
  { name: 'tickers', periodKey: 'tickersMs', reads: [{ surface: 'futures', endpoint: 'F2', per: 'surface' }, { surface: 'spot', endpoint: 'S9', per: 'symbol' }] },
  { name: 'orders', periodKey: 'ordersMs', reads: [{ surface: 'futures', endpoint: 'F5', per: 'symbol', paged: true }, { surface: 'spot', endpoint: 'spot-open-orders', per: 'symbol', paged: true }] },
  { name: 'balances', periodKey: 'balancesMs', reads: [{ surface: 'spot', endpoint: 'S8', per: 'surface' }, { surface: 'futures', endpoint: 'F3', per: 'surface' }] },
  { name: 'positions', periodKey: 'positionsMs', reads: [{ surface: 'futures', endpoint: 'F4', per: 'symbol' }] },
];

/** The symbols polled, by surface. */
export interface PolledSymbols {
  spot: readonly string[];
  futures: readonly string[];
}

/** One endpoint of a poll's cycle and how many requests it makes. */
export interface PollRequest {
  endpoint: PollEndpoint;
  times: number;
}

/** The endpoint a read sends (the configured spot open-orders source for that placeholder). */
export function readEndpoint(read: PollRead, spotOpenOrders: SpotOpenOrders): PollEndpoint {
  return read.endpoint === 'spot-open-orders' ? spotOpenOrders : read.endpoint;
}

/** The reads of a poll that have symbols to read for. */
export function activeReads(poll: PollSpec, symbols: PolledSymbols): PollRead[] {
  return poll.reads.filter((r) => symbols[r.surface].length > 0);
}

/**
 * The requests one cycle of `poll` makes, in its reading order. `pages` says how many pages a paged listing takes
 * per symbol (1 unless given).
 */
export function pollCycle(poll: PollSpec, symbols: PolledSymbols, spotOpenOrders: SpotOpenOrders, pages?: (endpoint: PollEndpoint) => number): PollRequest[] {
  return activeReads(poll, symbols).map((read) => {
    const endpoint = readEndpoint(read, spotOpenOrders);
    return { endpoint, times: (read.per === 'symbol' ? symbols[read.surface].length : 1) * (read.paged && pages ? pages(endpoint) : 1) };
  });
}

/** A poll by name. */
export function pollNamed(name: PollName): PollSpec {
  return POLLS.find((p) => p.name === name)!;
}
