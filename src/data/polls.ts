// The one table of polls: for each market-data poll, its period key, the endpoints one cycle reads on each surface
// (once per surface or once per symbol, paged or not) and what it yields. The live streams, the polling-plan
// check and the backtest's virtual polls all read it.
import type { Balance, Position, PublicTrade, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';

/** The key of `daemon.polls` that sets a poll's period. */
export type PollPeriodKey = 'tickersMs' | 'ordersMs' | 'balancesMs' | 'positionsMs' | 'tradesMs';

/** What each poll yields. */
export interface PollValues {
  tickers: Map<string, Ticker>;
  orders: Order[];
  balances: Balance[];
  positions: Position[];
  /** The spot pairs' recent public trades, newest first per pair (the tape bars are built from). */
  trades: PublicTrade[];
}

export type PollName = keyof PollValues;

/** The spot open-orders source (config `exchange.spotOpenOrders`). */
export type SpotOpenOrders = 'S15' | 'S1';

/** The futures tickers source: every contract at once (F2, weight 40) or one request per contract (F12, weight 1). */
export type FuturesTickers = 'F2' | 'F12';

/**
 * The spot tickers source: `depth` reads each pair's ticker (S11: last price, 24 h figures) and the top of its book
 * (S13: best bid and ask, which the spot ticker lacks); `trade` takes the pair's last public trade (S9) for a
 * ticker, with no bid or ask.
 */
export type SpotTickers = 'depth' | 'trade';

/** How the configurable reads are made (config `exchange`). */
export interface PollChoices {
  spotOpenOrders: SpotOpenOrders;
  futuresTickers: FuturesTickers;
  spotTickers: SpotTickers;
}

/** The endpoints polls read (ids of exchange/endpoints.ts, whose weights the plan and the meters look up). */
export type PollEndpoint = 'F2' | 'F12' | 'S9' | 'S11' | 'S13' | 'F5' | SpotOpenOrders | 'F3' | 'S8' | 'F4';

/** A read whose endpoint is chosen by configuration. */
type ChosenRead = 'spot-open-orders' | 'futures-tickers' | 'spot-tickers';

/** One endpoint (or configured choice of endpoints) a poll reads. */
export interface PollRead {
  surface: Surface;
  endpoint: Exclude<PollEndpoint, SpotOpenOrders | 'F2' | 'F12'> | ChosenRead;
  /** Read once per cycle for the surface, or once per symbol of it. */
  per: 'surface' | 'symbol';
  /** A listing walked page by page (open orders). */
  paged?: boolean;
  /** Which symbols: those traded (default), or those whose bars are built from the tape. */
  of?: 'traded' | 'bars';
}

/** One read as configured: its endpoint, and whether it is made once per symbol. */
export interface ResolvedRead {
  surface: Surface;
  endpoint: PollEndpoint;
  per: 'surface' | 'symbol';
  paged?: boolean;
  of: 'traded' | 'bars';
}

export interface PollSpec {
  name: PollName;
  periodKey: PollPeriodKey;
  /** What one cycle reads, in the order it reads and yields them (a surface without symbols reads nothing). */
  reads: readonly PollRead[];
}

/** The polls, in the order the plan lists them. */
export const POLLS: readonly PollSpec[] = [
  { name: 'tickers', periodKey: 'tickersMs', reads: [{ surface: 'futures', endpoint: 'futures-tickers', per: 'surface' }, { surface: 'spot', endpoint: 'spot-tickers', per: 'symbol' }] },
  { name: 'orders', periodKey: 'ordersMs', reads: [{ surface: 'futures', endpoint: 'F5', per: 'symbol', paged: true }, { surface: 'spot', endpoint: 'spot-open-orders', per: 'symbol', paged: true }] },
  { name: 'balances', periodKey: 'balancesMs', reads: [{ surface: 'spot', endpoint: 'S8', per: 'surface' }, { surface: 'futures', endpoint: 'F3', per: 'surface' }] },
  { name: 'positions', periodKey: 'positionsMs', reads: [{ surface: 'futures', endpoint: 'F4', per: 'symbol' }] },
  // Bars of a spot pair are built from its public trades; a futures contract's from its tickers (read above).
  { name: 'trades', periodKey: 'tradesMs', reads: [{ surface: 'spot', endpoint: 'S9', per: 'symbol', of: 'bars' }] },
];

/** The key of `daemon.polls` that sets the period of a watch (a schedule read outside the market-data streams). */
export type WatchPeriodKey = 'ledgerMs';

/**
 * Reads on a schedule of their own outside the market-data streams, counted in the polling plan like the polls:
 * the funding watch reads the futures ledger (F30, one page a cycle) while futures are traded.
 */
export const WATCH_POLLS: ReadonlyArray<{ name: string; periodKey: WatchPeriodKey; surface: Surface; endpoint: 'F30' }> = [
  { name: 'ledger', periodKey: 'ledgerMs', surface: 'futures', endpoint: 'F30' },
];

/** The symbols polled, by surface, and the spot pairs whose bars are built from their trades. */
export interface PolledSymbols {
  spot: readonly string[];
  futures: readonly string[];
  /** Spot pairs with bars (a subset of `spot`); none when absent. */
  barSpot?: readonly string[];
}

/** One endpoint of a poll's cycle and how many requests it makes. */
export interface PollRequest {
  endpoint: PollEndpoint;
  times: number;
}

/** The cheaper futures tickers read for `contracts` contracts: F12 per contract until F2's one request weighs less. */
export function chooseFuturesTickers(setting: 'auto' | FuturesTickers, contracts: number, weights: { F2: number; F12: number }): FuturesTickers {
  if (setting !== 'auto') return setting;
  return contracts * weights.F12 < weights.F2 ? 'F12' : 'F2';
}

/** The endpoints a read sends, as configured (the spot depth ticker reads two per pair). */
export function resolveRead(read: PollRead, choices: PollChoices): ResolvedRead[] {
  const of = read.of ?? 'traded';
  const base = { surface: read.surface, of, ...(read.paged ? { paged: true } : {}) };
  switch (read.endpoint) {
    case 'spot-open-orders':
      return [{ ...base, endpoint: choices.spotOpenOrders, per: read.per }];
    case 'futures-tickers':
      return [{ ...base, endpoint: choices.futuresTickers, per: choices.futuresTickers === 'F2' ? 'surface' : 'symbol' }];
    case 'spot-tickers':
      return choices.spotTickers === 'depth'
        ? [{ ...base, endpoint: 'S11', per: 'symbol' }, { ...base, endpoint: 'S13', per: 'symbol' }]
        : [{ ...base, endpoint: 'S9', per: 'symbol' }];
    default:
      return [{ ...base, endpoint: read.endpoint, per: read.per }];
  }
}

/** The symbols a read is made for. */
export function symbolsOf(read: Pick<ResolvedRead, 'surface' | 'of'>, symbols: PolledSymbols): readonly string[] {
  if (read.of === 'bars') return read.surface === 'spot' ? (symbols.barSpot ?? []) : [];
  return symbols[read.surface];
}

/** The reads of a poll that have symbols to read for, as configured. */
export function activeReads(poll: PollSpec, symbols: PolledSymbols, choices: PollChoices): ResolvedRead[] {
  return poll.reads.flatMap((r) => resolveRead(r, choices)).filter((r) => symbolsOf(r, symbols).length > 0);
}

/**
 * The requests one cycle of `poll` makes, in its reading order. `pages` says how many pages a paged listing takes
 * per symbol (1 unless given).
 */
export function pollCycle(poll: PollSpec, symbols: PolledSymbols, choices: PollChoices, pages?: (endpoint: PollEndpoint) => number): PollRequest[] {
  return activeReads(poll, symbols, choices).map((read) => ({
    endpoint: read.endpoint,
    times: (read.per === 'symbol' ? symbolsOf(read, symbols).length : 1) * (read.paged && pages ? pages(read.endpoint) : 1),
  }));
}

/** A poll by name. */
export function pollNamed(name: PollName): PollSpec {
  return POLLS.find((p) => p.name === name)!;
}
