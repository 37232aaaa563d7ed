// One market-data cycle, read at once (backtests, soak) and narrowed to what each strategy instance sees.
import { tickerFromTrade } from '../data/market-data.js';
import type { Balance, Position, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { Journal } from '../journal/journal.js';
import type { MarketUpdate } from '../strategy/api.js';
import type { StrategyInstanceConfig } from '../strategy/runner.js';

export interface CycleData {
  tickers: Map<string, Ticker>;
  orders: Order[];
  balances: Balance[];
  positions: Position[];
}

export async function readTickers(client: ExchangeClient, spot: string[], futures: string[]): Promise<Map<string, Ticker>> {
  const tickers = new Map<string, Ticker>();
  if (futures.length) for (const t of await client.tickers()) if (futures.includes(t.symbol)) tickers.set(t.symbol, t);
  for (const s of spot) {
    const t = tickerFromTrade(s, (await client.recentTrades(s, 1))[0]);
    if (t) tickers.set(s, t);
  }
  return tickers;
}

export async function readOrders(client: ExchangeClient, spot: string[], futures: string[]): Promise<Order[]> {
  const orders: Order[] = [];
  for (const s of spot) orders.push(...(await client.openOrders('spot', s)));
  for (const s of futures) orders.push(...(await client.openOrders('futures', s)));
  return orders;
}

export async function readBalances(client: ExchangeClient, spot: string[], futures: string[]): Promise<Balance[]> {
  return [...(spot.length ? await client.balances('spot') : []), ...(futures.length ? await client.balances('futures') : [])];
}

export async function readPositions(client: ExchangeClient, futures: string[]): Promise<Position[]> {
  const positions: Position[] = [];
  for (const s of futures) positions.push(...(await client.positions(s)));
  return positions;
}

/** Reads tickers (spot: the last trade), open orders, balances and positions of the symbols, one after another. */
export async function readCycle(client: ExchangeClient, spot: string[], futures: string[]): Promise<CycleData> {
  return {
    tickers: await readTickers(client, spot, futures),
    orders: await readOrders(client, spot, futures),
    balances: await readBalances(client, spot, futures),
    positions: await readPositions(client, futures),
  };
}

/** What one instance sees: its own orders (by the journal's record of who placed them) and its symbols. */
export function strategyUpdate(sc: StrategyInstanceConfig, nowMs: number, d: CycleData, journal: Pick<Journal, 'order'>): MarketUpdate {
  return {
    nowMs,
    tickers: d.tickers,
    openOrders: d.orders.filter((o) => sc.symbols.includes(o.symbol) && o.clientOid && journal.order(o.clientOid)?.strategyId === sc.id),
    positions: d.positions.filter((p) => sc.symbols.includes(p.symbol)),
    balances: d.balances,
  };
}
