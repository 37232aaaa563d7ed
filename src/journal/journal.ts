// The journal port: what the executor, the order tracker and the risk gate write down before and after every
// exchange call. SQLite implements it (sqlite-journal.ts); test/contract/journal-contract.ts is what any other
// implementation (PostgreSQL) must pass. Order states and their sets live in domain/order-lifecycle.ts.
import type { Surface } from '../domain/market.js';
import type { OrderState } from '../domain/order-lifecycle.js';

export { ACTIVE_STATES, FINAL_STATES, RESTING_STATES, UNANSWERED_STATES, UNCONFIRMED_STATES, type OrderState } from '../domain/order-lifecycle.js';

export interface JournalOrder {
  clientOid: string;
  strategyId: string;
  intentId: number;
  surface: Surface;
  symbol: string;
  side: 'buy' | 'sell';
  kind: 'limit' | 'market';
  timeInForce: string;
  price: string | null;
  size: string;
  positionSide: string | null;
  reduceOnly: boolean;
  isTrigger: boolean;
  triggerPrice: string | null;
  orderId: string | null;
  state: OrderState;
  filledSize: string;
  avgPrice: string | null;
  fee: string | null;
  /** When the row was written (before the order was sent), and last changed. */
  createdAtMs: number;
  updatedAtMs: number;
  /** When the venue last showed this order (open-order lists or a lookup); null before it ever did. */
  seenAtMs: number | null;
  /** Lookups in a row that did not find the order (after the grace window). */
  absentChecks: number;
  /** When the first of those lookups was made; null while the venue shows the order. */
  absentSinceMs: number | null;
  lastError: string | null;
  /** A trigger order that protects a position (F23): its stop-loss or take-profit; absent or null otherwise. */
  role?: 'stop-loss' | 'take-profit' | null;
}

/** Funding settled on a futures position, once per settlement (`ref`: the venue's bill id, or symbol and time). */
export interface FundingRecord {
  ref: string;
  symbol: string;
  /** Signed change of collateral: negative when paid. */
  amount: string;
  atMs: number;
}

/** The venue and account a journal belongs to: its order ids mean nothing anywhere else. */
export interface VenueBinding {
  /** Where the orders go: the base URLs (credentials stripped), or a simulator instance. */
  venue: string;
  /**
   * Which account: a digest of the API key (never the key itself), or the simulator's. The venue names no account a
   * key belongs to: after a key rotation, `sextant journal rebind` (app/journal-rebind.ts) moves the binding.
   */
  account: string;
}

export class JournalVenueError extends Error {}

/** A write refused: the store has recorded a newer lease holder's fencing token than this journal's. */
export class JournalFencedError extends Error {
  constructor(
    readonly token: number,
    readonly storeToken: number,
  ) {
    super(`journal write refused: fenced off by token ${storeToken} (this writer holds token ${token}, older): another process holds the account's lease`);
    this.name = 'JournalFencedError';
  }
}

/**
 * Binds a journal to its venue and account on first use, and refuses one that belongs to another: order ids of
 * another venue instance must never be mixed in (a fresh venue numbers its orders from 1 again).
 */
export function bindJournal(journal: Journal, want: VenueBinding, where: string, atMs: number): void {
  const have = journal.venueBinding();
  if (!have) return journal.bindVenue(want, atMs);
  if (have.venue === want.venue && have.account === want.account) return;
  // The same venue under another key: a key rotated on the same account, or another account.
  const rotated =
    have.venue === want.venue
      ? "if the API key was rotated on the same account, `sextant journal rebind` binds the journal to the new key once the key finds the journal's orders at the venue; otherwise "
      : '';
  throw new JournalVenueError(
    `journal ${where} belongs to venue ${have.venue} (account ${have.account}), not to ${want.venue} (account ${want.account}): ` +
      `${rotated}use another journal.path for this venue or account, or move the file away if that venue is gone for good`,
  );
}

export interface Latch {
  name: string;
  reason: string;
  atMs: number;
}

/** A fill as recorded, with what its order says of it (null when the journal has no such order). */
export interface JournalFill {
  clientOid: string;
  orderId: string;
  fillId: string;
  price: string;
  size: string;
  fee: string;
  atMs: number;
  strategyId: string | null;
  symbol: string | null;
  side: 'buy' | 'sell' | null;
}

/** One point of a surface's equity series (recorded when it changed). */
export interface EquityRecord {
  surface: Surface;
  value: string;
  atMs: number;
}

/** An operator's command: who gave it, through what, why and what, written before it acts; its outcome after. */
export interface CommandRecord {
  id: number;
  /** The surface it came through (`api`, `cli`, `telegram`, `dashboard`) and the caller there (never a secret). */
  via: string;
  who: string;
  /** What: `pause`, `halt`, `flatten` … */
  command: string;
  /** Its arguments, as JSON. */
  args: string;
  reason: string | null;
  atMs: number;
  /** How it ended; null while it runs, or when the process ended before it did. */
  outcome: { ok: boolean; detail: string; atMs: number } | null;
}

export interface Journal {
  /** Records an intent; returns its id. Durable with the next durable write (not flushed on its own). */
  recordIntent(strategyId: string, kind: string, json: string, atMs: number): number;
  /**
   * Reserves `n` client ids for a strategy: never handed out again, across restarts. Durable with the next durable write
   * (the order rows of those ids): a power loss before it may hand them out again, nothing having been sent with them.
   */
  nextClientOids(strategyId: string, n: number): string[];
  /** Writes orders durably, in one transaction, before they are sent (and with them every write before). */
  insertOrders(rows: JournalOrder[]): void;
  /** Changes an order and records the change in its history. */
  updateOrder(clientOid: string, patch: Partial<JournalOrder>, event: string, atMs: number): void;
  order(clientOid: string): JournalOrder | undefined;
  /** The order with this venue id: an active one first, else the newest (ids of a replaced venue repeat). */
  orderByOrderId(orderId: string): JournalOrder | undefined;
  /** Orders not in a final state (lost ones included: they are still checked). */
  activeOrders(): JournalOrder[];
  /**
   * Moves whenever an order is written or changed (or another process's changes are taken in): while it holds,
   * activeOrders() gives the same rows, and a reader may keep what it made of them.
   */
  activeVersion(): number;
  /** Takes in what another process (an operator's command) changed in the store since it was last read. */
  refresh(): void;
  allOrders(): JournalOrder[];
  history(clientOid: string): Array<{ event: string; state: string; atMs: number }>;
  recordFill(f: { clientOid: string; orderId: string; fillId: string; price: string; size: string; fee: string; atMs: number }): boolean;
  /** Fills, oldest first, with their orders' strategy, symbol and side; of one strategy; the latest `limit` of them. */
  fills(query?: { strategyId?: string; limit?: number }): JournalFill[];
  /** The orders of any state, newest first (then by client id, descending), of one strategy; at most `limit`. */
  recentOrders(query: { strategyId?: string; limit: number }): JournalOrder[];
  /** Records a funding settlement once (by `ref`); false when it was recorded already. */
  recordFunding(f: FundingRecord): boolean;
  /** Every funding settlement recorded, oldest first. */
  funding(): FundingRecord[];
  recordRiskDecision(strategyId: string, intentKind: string, reason: string, detail: string, atMs: number): void;
  /** Several decisions in one transaction (a large refused intent costs one commit). */
  recordRiskDecisions(rows: Array<{ strategyId: string; intentKind: string; reason: string; detail: string; atMs: number }>): void;
  riskDecisions(): Array<{ strategyId: string; reason: string; detail: string; atMs: number }>;
  /**
   * A named latch of the risk gate (a kill switch, a reduce order), durable until cleared. A latch set or cleared
   * by another process on the same store is seen at the next read.
   */
  latch(name: string): Latch | undefined;
  /** Sets a latch; one already set keeps its first reason and time. */
  setLatch(name: string, reason: string, atMs: number): void;
  clearLatch(name: string): void;
  /** Records a surface's equity when it differs from the value recorded before. */
  recordEquity(surface: Surface, value: string, atMs: number): void;
  /** The equity series of every surface, oldest first, from `sinceMs` (inclusive); the latest `limit` points. */
  equitySeries(query?: { sinceMs?: number; limit?: number }): EquityRecord[];
  /** Writes down an operator's command before it acts; returns its id. */
  recordCommand(c: Omit<CommandRecord, 'id' | 'outcome'>): number;
  /** Writes down how a command ended. */
  finishCommand(id: number, outcome: { ok: boolean; detail: string; atMs: number }): void;
  /** Commands, oldest first: the latest `limit` of them. */
  commands(query?: { limit?: number }): CommandRecord[];
  /** A strategy instance's state as JSON, and saving it. */
  strategyState(strategyId: string): string | undefined;
  saveStrategyState(strategyId: string, json: string, atMs: number): void;
  /** The venue and account this journal belongs to, once bound. */
  venueBinding(): VenueBinding | undefined;
  bindVenue(binding: VenueBinding, atMs: number): void;
  maintain(): void;
  /**
   * Writes from now on under a lease's fencing token: every write transaction first checks the store's fence, and
   * throws JournalFencedError (writing nothing) when a larger token is recorded there; otherwise records `token`, so a
   * newer holder locks older ones out. fence() itself records the token (or throws when a larger one is there).
   * Without it, writes are not fenced.
   */
  fence(token: number): void;
  /**
   * fence() without waiting on another process's hold of the store's write lock (a holder that stopped mid-write
   * keeps it until it runs again, or, in PostgreSQL, until its session ends): false when the lock is held, with
   * nothing recorded and the journal unfenced as before; true once fenced. Throws as fence() does.
   */
  tryFence(token: number): boolean;
  countByState(): Record<string, number>;
  close(): void;
}
