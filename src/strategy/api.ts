// The public strategy entry (`sextant/strategy`): the only module a strategy imports. Strategies are plain
// functions from market updates and execution events to intents: no RxJS, no client, no timers, no I/O.
import { z } from 'zod';
import { TIMEFRAMES, TIMEFRAME_MS, barOpenMs, type Bar, type Timeframe } from '../domain/candles.js';
import { Decimal, type RoundingMode } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import { diffTargets, type Intent, type OrderSpec, type TrailingStop } from '../domain/intent.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { BarSeries } from './bar-history.js';
import type { Holding, PositionHolding } from './inventory.js';

export { z, Decimal, diffTargets, TIMEFRAMES, TIMEFRAME_MS, barOpenMs };
export type {
  ExecutionEvent,
  Intent,
  OrderSpec,
  TrailingStop,
  Instrument,
  Ticker,
  Order,
  Position,
  Balance,
  RoundingMode,
  Bar,
  Timeframe,
  BarSeries,
  Holding,
  PositionHolding,
};
export * from './indicators.js';
export { decimalFromFloat, priceFromFloat } from './numbers.js';
export { equityOf, sizeFromEquity, sizeFromQuote, sizeFromRisk } from './sizing.js';

/**
 * An intent as a strategy returns it: the runner adds the strategy id. `protect` asks for managed stops on one of
 * its futures position sides (stop-loss, take-profit, trailing stop), kept in line with the position by the
 * execution layer: see docs/strategies.md, "Managed stops".
 */
export type StrategyIntent = Intent extends infer I ? (I extends Intent ? Omit<I, 'strategyId'> : never) : never;

export interface StrategyLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

export interface StrategyContext<P> {
  /** Instance id from the config (`strategies[].id`). */
  id: string;
  params: P;
  symbols: string[];
  instruments: ReadonlyMap<string, Instrument>;
  log: StrategyLog;
  /** Kept across restarts for this instance (JSON-serialisable values only). */
  state: Record<string, unknown>;
  /**
   * The bars of one of its symbols in one of its timeframes: the last `lookback` closed bars (`last()` the newest)
   * and the forming one. Throws for a symbol or timeframe the instance did not declare.
   */
  bars(symbol: string, timeframe: Timeframe): BarSeries;
  /** What the instance holds in one of its symbols, from its own fills since it started (in memory, not across restarts). */
  inventory(symbol: string): Holding;
}

/** What a strategy sees on each market update. */
export interface MarketUpdate {
  nowMs: number;
  tickers: ReadonlyMap<string, Ticker>;
  /** This strategy's own open orders on its symbols. */
  openOrders: readonly Order[];
  positions: readonly Position[];
  balances: readonly Balance[];
}

export type HookResult = StrategyIntent[] | void;

export interface StrategyDefinition<P> {
  name: string;
  description?: string;
  /** Validates the instance's `params` from YAML; its defaults apply. */
  params: z.ZodType<P>;
  onStart?(ctx: StrategyContext<P>): HookResult;
  onMarket?(ctx: StrategyContext<P>, update: MarketUpdate): HookResult;
  onEvent?(ctx: StrategyContext<P>, event: ExecutionEvent): HookResult;
  /**
   * Timeframes of the bars it reads (onBar, `ctx.bars`), for each of its symbols, when the instance's config names
   * none (`strategies[].timeframes` overrides them).
   */
  timeframes?: Timeframe[];
  /** Closed bars kept per symbol and timeframe: a number, or one worked out from the params (once, at start). 1–5000; default 100. */
  lookback?: number | ((params: P) => number);
  /**
   * Each closed bar of each of its symbols and timeframes, once, oldest first (bars of one close time: the shorter
   * timeframe first); the bar is already the newest of `ctx.bars(bar.symbol, bar.timeframe)`. A bar without trades
   * is flat at the previous close with volume 0. `update`: the latest tickers, its own open orders, positions,
   * balances, and the time.
   */
  onBar?(ctx: StrategyContext<P>, bar: Bar, update: MarketUpdate): HookResult;
  /** Named scheduled hooks; YAML maps each name to a cron expression. */
  onSchedule?: Record<string, (ctx: StrategyContext<P>, nowMs: number) => HookResult>;
}

export function defineStrategy<P>(def: StrategyDefinition<P>): StrategyDefinition<P> {
  return def;
}

// ---- helpers ----

/** Rounds a price to the instrument's tick (down for buys, up for sells keeps a quote passive). */
export function roundPrice(price: Decimal, inst: Instrument, mode: RoundingMode): Decimal {
  return price.roundToStep(inst.tickSize, mode);
}

/** Rounds a size down to the instrument's step. */
export function roundSize(size: Decimal, inst: Instrument): Decimal {
  return size.roundToStep(inst.stepSize, 'down');
}

/** Mid price of a ticker, or null when a side is unknown. */
export function mid(t: Ticker | undefined): Decimal | null {
  if (!t?.bestBid || !t.bestAsk) return null;
  return t.bestBid.add(t.bestAsk).div(Decimal.fromInt(2), 12);
}

/** Simple moving average over numbers (indicators may use floats; prices sent out may not: see priceFromFloat). */
export function sma(values: readonly number[], n: number): number | null {
  if (values.length < n) return null;
  let s = 0;
  for (let i = values.length - n; i < values.length; i++) s += values[i]!;
  return s / n;
}
