// The operator's control of a running daemon, one interface for every surface that watches or steers it: the HTTP
// control API (/api/v1), the dashboard (through that API), the chat commands and the command line (through the
// API). The daemon implements it over the core (src/app/): reads are snapshots of the core, the journal and the
// venue's budget; commands are journaled with who gave them and why before they act. Money leaves here as exact
// decimal strings (JSON-ready); ids as strings.
import type { DivergenceReport } from '../report/divergence.js';
import type { TradingState } from '../domain/events.js';

/** Who gave a command: the surface and, where known, the caller (a chat id, an API client). */
export interface Actor {
  via: 'api' | 'telegram' | 'cli' | 'dashboard';
  /** A chat id, `token`, `loopback`: never a secret. */
  who: string;
}

export interface ControlStatus {
  /** The version of sextant running. */
  version: string;
  mode: 'live' | 'dry-run' | 'backtest';
  /** The venue traded, credentials stripped (base URLs or the embedded simulator). */
  venue: string;
  startedAtMs: number;
  nowMs: number;
  tradingState: TradingState;
  /** Why trading is halted or reducing (the latches in force), empty when active. */
  latches: Array<{ name: string; reason: string; atMs: number }>;
  /** Why new orders wait (orders with an unknown outcome), null when they do not. */
  fenced: string | null;
  reconciliation: { lastAtMs: number | null; unresolved: number };
  /** Per budget pool (`futures:ip`, `spot:uid`, `futures:orders` …): weight the limiter could start now, and waiting requests. */
  budget: Array<{ pool: string; available: number | null; queued: number }>;
  /** Age of each poll's latest success, ms (null: never succeeded yet). */
  polls: Array<{ poll: string; ageMs: number | null }>;
  /** The account lease this daemon trades under (daemon.lease): its name in it, the fencing token, held now; null without one. */
  lease: { holder: string; fencingToken: number | null; held: boolean } | null;
}

export interface StrategyView {
  id: string;
  name: string;
  symbols: string[];
  params: unknown;
  /** running: takes updates; paused: by an operator (no new intents); faulted: stopped by its errors. */
  state: 'running' | 'paused' | 'faulted';
  errors: number;
  lastError: string | null;
  /** From its own fills: realised PnL and fees (quote), fills counted. */
  pnl: { realized: string; fees: string; fills: number };
  openOrders: number;
  positions: Array<{ symbol: string; side: string; size: string; entryPrice: string | null; unrealizedPnl: string | null }>;
}

export interface OrderView {
  clientOid: string;
  orderId: string | null;
  strategyId: string;
  surface: string;
  symbol: string;
  side: string;
  kind: string;
  price: string | null;
  size: string;
  filledSize: string;
  avgPrice: string | null;
  state: string;
  role: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface FillView {
  clientOid: string;
  orderId: string;
  fillId: string;
  strategyId: string | null;
  symbol: string | null;
  price: string;
  size: string;
  fee: string;
  atMs: number;
}

/** What the live update stream and the event log carry. */
export interface ControlEvent {
  /** order: an order changed; fill; state: trading state; equity; strategy: paused, resumed, faulted, reloaded; command: an operator's command. */
  kind: 'order' | 'fill' | 'state' | 'equity' | 'strategy' | 'command';
  atMs: number;
  /** One line a person reads. */
  text: string;
  /** The event's fields, JSON-ready. */
  data: Record<string, unknown>;
}

/** What was realised (from the journal's fills, at average cost per strategy and symbol): exact decimal strings. */
export interface RealisedView {
  /** Realised PnL, fees included (quote currency). */
  realized: string;
  fees: string;
  fills: number;
  /** Round trips closed: times a strategy's holding of a symbol went back to zero, or through it. */
  roundTrips: number;
}

/** What was realised over one window, per strategy and in all. */
export interface ProfitWindow {
  /** today: since 00:00 UTC; 7d: the last 7 × 24 h; all: every fill. */
  window: 'today' | '7d' | 'all';
  /** Its start, ms since the epoch; null for all. */
  sinceMs: number | null;
  /** Every configured strategy (nothing realised: zeros), then any other the journal has fills of. */
  strategies: Array<{ id: string } & RealisedView>;
  total: RealisedView;
}

/** What was realised on one symbol, by every strategy, all time. */
export interface SymbolPerformance extends RealisedView {
  symbol: string;
}

/** A command's answer: done, or refused with why (an unknown strategy, a missing reason, nothing to do). */
export type CommandResult = { ok: true; detail: string } | { ok: false; status: 400 | 404 | 409; error: string };

export interface Control {
  /** Brings up to date what status() reads that takes I/O to read (the limiter's pools); status() works without it. */
  refresh?(): Promise<void>;
  status(): ControlStatus;
  strategies(): StrategyView[];
  /** Open orders (active in the journal), or the recent ones (any state, newest first), optionally of one strategy. */
  orders(query: { scope: 'open' | 'recent'; strategyId?: string; limit?: number }): OrderView[];
  /** An order and its journal history; undefined when the journal has no such client id. */
  order(clientOid: string): { order: OrderView; history: Array<{ event: string; state: string; atMs: number }> } | undefined;
  fills(query: { strategyId?: string; limit?: number }): FillView[];
  balances(): Array<{ surface: string; asset: string; total: string; available: string | null }>;
  positions(): Array<{
    symbol: string;
    side: string;
    size: string;
    entryPrice: string | null;
    markPrice: string | null;
    unrealizedPnl: string | null;
    liquidationPrice: string | null;
  }>;
  /** The journal's equity series of each surface, oldest first, from `sinceMs`. */
  equity(query: { sinceMs?: number }): Array<{ surface: string; value: string; atMs: number }>;
  /** Realised PnL and fees per strategy today (since 00:00 UTC), over the last 7 days and all time, each with its total. */
  profit(): ProfitWindow[];
  /** Realised PnL per symbol (every strategy, all time), best first. */
  performance(): SymbolPerformance[];
  /** The latest events, newest last (a bounded ring). */
  recentEvents(limit?: number): ControlEvent[];
  /** How live differs from the shadow so far (config `shadow`); undefined when no shadow runs. */
  shadow?(): DivergenceReport | undefined;
  /** Calls `listener` with every event as it happens; returns the unsubscribe. A throwing listener is not called again. */
  onEvent(listener: (e: ControlEvent) => void): () => void;

  // Every command is journaled with the actor and the reason (optional where the signature says so) before it acts,
  // and with its outcome after; each is also an event of kind `command`.

  /** No new intents from the strategy; its open orders are canceled when `cancelOrders`. */
  pause(id: string, opts: { cancelOrders: boolean; reason?: string }, actor: Actor): Promise<CommandResult>;
  resume(id: string, actor: Actor, reason?: string): Promise<CommandResult>;
  /** The strategies' params from the config file again, validated like SIGHUP (all or nothing). */
  reload(actor: Actor, reason?: string): Promise<CommandResult>;
  /** Cancels every open order of one strategy (trigger orders that protect a position stay). */
  cancelOrders(id: string, actor: Actor, reason?: string): Promise<CommandResult>;
  /** Latches halted (cancels only) until reset. */
  halt(reason: string, actor: Actor): Promise<CommandResult>;
  /** Latches reducing (only orders that shrink exposure) until reset. */
  reduce(reason: string, actor: Actor): Promise<CommandResult>;
  /** Clears every latch (kill switches, reducing): trading resumes. A reason is required. */
  reset(reason: string, actor: Actor): Promise<CommandResult>;
  /** The kill switch with the flatten action: cancel all and close futures positions (risk.onKill flatten's steps). */
  flatten(reason: string, actor: Actor): Promise<CommandResult>;
  /**
   * Clears the authentication halt (signed requests stopped after the venue refused our keys), once the keys are
   * fixed: signed requests go again and a signed read probes the keys before the fence lifts. 409 while that read
   * fails (the fence stays, with its reason) or when the daemon has no venue keys.
   */
  clearAuthHalt(actor: Actor, reason?: string): Promise<CommandResult>;
  /**
   * Closes one strategy's holding of one symbol at market, as its own order through the risk gate and the executor
   * (a client id of the strategy, journaled before it is sent): its futures position (reduce-only, per position side)
   * or the spot inventory its fills bought, never more than the account holds. The strategy is paused first and stays
   * paused (it would trade back in otherwise), and its open orders on that symbol are canceled. 404: no such strategy
   * or symbol of it; 409: nothing to close, or the close refused.
   */
  forceExit(strategyId: string, symbol: string, actor: Actor, reason?: string): Promise<CommandResult>;
}
