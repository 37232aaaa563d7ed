// The public strategy entry (`sextant/strategy`): the only module a strategy imports. Strategies are plain
// functions from market updates and execution events to intents: no RxJS, no client, no timers, no I/O.
import { z } from 'zod';
import { Decimal, type RoundingMode } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import { diffTargets, type Intent, type OrderSpec } from '../domain/intent.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';

export { z, Decimal, diffTargets };
export type { ExecutionEvent, Intent, OrderSpec, Instrument, Ticker, Order, Position, Balance, RoundingMode };

/** An intent as a strategy returns it: the runner adds the strategy id. */
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

/** Simple moving average over numbers (indicators may use floats; prices sent out may not). */
export function sma(values: readonly number[], n: number): number | null {
  if (values.length < n) return null;
  let s = 0;
  for (let i = values.length - n; i < values.length; i++) s += values[i]!;
  return s / n;
}
