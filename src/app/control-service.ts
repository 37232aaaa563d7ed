// The daemon's Control (src/ops/control.ts) over the core: reads are snapshots of the core, the journal and the
// limiter (the views of them, and realised PnL by window and by symbol, are control-views.ts's); the event ring and stream are built from
// the executor's events, the trading state, the strategies' changes, equity and the commands; every command is
// journaled (who, why, what) before it acts and with its outcome after, and told as an event. A force exit is
// force-exit.ts's.
import type { AccountLease } from './account-lease.js';
import { Subscription } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import { LATCHES } from '../execution/latches.js';
import { unansweredOrders } from '../execution/order-tracker.js';
import type {
  Actor,
  CommandResult,
  Control,
  ControlEvent,
  ControlStatus,
  FillView,
  OrderView,
  ProfitWindow,
  StrategyView,
  SymbolPerformance,
} from '../ops/control.js';
import { strategyPnls } from '../report/metrics.js';
import type { DivergenceReport } from '../report/divergence.js';
import type { StrategyChange } from '../strategy/runner.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Core } from './core.js';
import { dataOf, orderView, ownedFills, profitWindows, str, symbolPerformance, textOf } from './control-views.js';
import { ForceExits } from './force-exit.js';
import { clearedResult } from './key-gate.js';
import { shown } from '../util/shown.js';
import { VERSION } from '../util/package.js';

/** Events kept for GET events and a client that joins late. */
export const EVENT_RING_SIZE = 500;
/** Before a strategy's orders are canceled, the intents queued and in flight are waited for, this many at most. */
const MAX_DRAIN_ROUNDS = 20;
/** Equity is an event at most this often (it changes at every balances poll). */
export const EQUITY_EVENT_GAP_MS = 30_000;

export interface ControlServiceOptions {
  core: Core;
  clock: Clock;
  logger: Logger;
  mode: ControlStatus['mode'];
  /** The limiter's pools: weight it could start now and requests waiting. */
  limiter?: { stats(): Promise<Array<{ pool: string; reservoir: number | null; queued: number }>> };
  /** The account lease the daemon trades under, when configured. */
  lease?: Pick<AccountLease, 'holder' | 'fencingToken' | 'held'>;
  /** When each poll last succeeded. */
  lastPolled: ReadonlyMap<string, number>;
  /** The SIGHUP path: the config file read again and the strategies' params applied; the problems (nothing applied then). */
  reload: () => Promise<string[]>;
  /** The kill action's flatten steps, now, once `latch` has set the operator's kill latch; resolves to what was done. */
  flatten: (latch: () => void) => Promise<string>;
}

export class ControlService implements Control {
  private readonly ring: ControlEvent[] = [];
  private readonly listeners = new Set<(e: ControlEvent) => void>();
  private readonly subs = new Subscription();
  private readonly startedAtMs: number;
  private readonly log: Logger;
  private budget: ControlStatus['budget'] = [];
  private lastEquityEventMs = -Infinity;
  private lastEquityText = '';
  private readonly exits: ForceExits;

  constructor(private readonly opts: ControlServiceOptions) {
    this.startedAtMs = opts.clock.now();
    this.log = opts.logger.child({ component: 'control' });
    this.exits = new ForceExits(opts.core, this.log, (id, symbol) => this.cancelOwn(id, symbol));
    const { core } = opts;
    this.subs.add(
      core.executor.events$.subscribe((e) =>
        this.emit(e.type === 'filled' || e.type === 'partially-filled' ? 'fill' : e.type === 'trading-state' ? 'state' : 'order', e.atMs, textOf(e), dataOf(e)),
      ),
    );
    this.subs.add(core.risk.tradingStates$.subscribe((e) => this.emit('state', e.atMs, textOf(e), dataOf(e))));
    this.subs.add(
      core.runner.changes$.subscribe((c: StrategyChange) =>
        this.emit('strategy', c.atMs ?? opts.clock.now(), `${c.id} ${c.change}${c.reason ? `: ${c.reason}` : ''}`, { ...c }),
      ),
    );
  }

  /** Equity by surface as valued (the daemon's onEquity): an event when it changed, at most every EQUITY_EVENT_GAP_MS. */
  equityChanged(bySurface: Record<string, Decimal>, atMs: number): void {
    const values = Object.fromEntries(Object.entries(bySurface).map(([surface, value]) => [surface, value.toString()]));
    const text = Object.entries(values)
      .map(([surface, value]) => `${surface} ${value}`)
      .join(', ');
    if (text === this.lastEquityText || atMs - this.lastEquityEventMs < EQUITY_EVENT_GAP_MS) return;
    this.lastEquityText = text;
    this.lastEquityEventMs = atMs;
    this.emit('equity', atMs, `equity ${text}`, { bySurface: values });
  }

  /** No more events (the daemon stops). */
  stop(): void {
    this.subs.unsubscribe();
    this.listeners.clear();
  }

  private emit(kind: ControlEvent['kind'], atMs: number, text: string, data: Record<string, unknown>): void {
    const e: ControlEvent = { kind, atMs, text, data };
    this.ring.push(e);
    if (this.ring.length > EVENT_RING_SIZE) this.ring.splice(0, this.ring.length - EVENT_RING_SIZE);
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch (err) {
        this.listeners.delete(listener);
        this.log.warn({ err: String(err) }, 'an event listener failed: it is called no more');
      }
    }
  }

  // --- reads

  async refresh(): Promise<void> {
    if (!this.opts.limiter) return;
    try {
      this.budget = (await this.opts.limiter.stats()).map((s) => ({ pool: s.pool, available: s.reservoir, queued: s.queued }));
    } catch (err) {
      this.log.warn({ err: String(err) }, 'limiter stats unavailable');
    }
  }

  status(): ControlStatus {
    const { core, clock } = this.opts;
    const now = clock.now();
    const latches = LATCHES.flatMap(({ name }) => core.journal.latch(name) ?? []).map((l) => ({ name: l.name, reason: l.reason, atMs: l.atMs }));
    const polls = new Map<string, number | null>([
      ['tickers', null],
      ['orders', null],
      ['balances', null],
    ]);
    for (const [poll, at] of this.opts.lastPolled) polls.set(poll, at);
    return {
      version: VERSION,
      mode: this.opts.mode,
      venue: core.journal.venueBinding()?.venue ?? 'unknown',
      startedAtMs: this.startedAtMs,
      nowMs: now,
      tradingState: core.risk.state(),
      latches,
      fenced: core.executor.fenced,
      reconciliation: { lastAtMs: core.lastReconciledAtMs(), unresolved: unansweredOrders(core.journal, now).length },
      budget: this.budget,
      polls: [...polls].map(([poll, at]) => ({ poll, ageMs: at === null ? null : now - at })),
      lease: this.opts.lease ? { holder: this.opts.lease.holder, fencingToken: this.opts.lease.fencingToken ?? null, held: this.opts.lease.held() } : null,
    };
  }

  strategies(): StrategyView[] {
    const { core } = this.opts;
    const status = new Map(core.runner.status().map((s) => [s.id, s]));
    const { fills, owner } = ownedFills(core.journal.fills());
    const pnl = strategyPnls(fills, owner, () => null);
    const { positions, orders } = core.state();
    return core.runner.configs().map((cfg) => {
      const s = status.get(cfg.id);
      const p = pnl[cfg.id];
      return {
        id: cfg.id,
        name: cfg.name,
        symbols: [...cfg.symbols],
        params: cfg.params ?? {},
        state: s?.paused ? 'paused' : s?.faulted ? 'faulted' : 'running',
        errors: s?.errors ?? 0,
        lastError: s?.error ?? null,
        pnl: { realized: p?.realized ?? '0', fees: p?.fees ?? '0', fills: p?.fills ?? 0 },
        openOrders: orders.filter((r) => r.strategyId === cfg.id).length,
        positions: positions
          .filter((x) => cfg.symbols.includes(x.symbol))
          .map((x) => ({ symbol: x.symbol, side: x.side, size: x.size.toString(), entryPrice: str(x.entryPrice), unrealizedPnl: str(x.unrealizedPnl) })),
      };
    });
  }

  profit(): ProfitWindow[] {
    return profitWindows(ownedFills(this.opts.core.journal.fills()), this.opts.core.runner.ids, this.opts.clock.now());
  }

  performance(): SymbolPerformance[] {
    return symbolPerformance(ownedFills(this.opts.core.journal.fills()));
  }

  orders(query: { scope: 'open' | 'recent'; strategyId?: string; limit?: number }): OrderView[] {
    const journal = this.opts.core.journal;
    const id = query.strategyId;
    if (query.scope === 'recent') return journal.recentOrders({ ...(id !== undefined ? { strategyId: id } : {}), limit: query.limit ?? 100 }).map(orderView);
    const open = journal.activeOrders().filter((r) => id === undefined || r.strategyId === id);
    return (query.limit !== undefined ? open.slice(0, query.limit) : open).map(orderView);
  }

  order(clientOid: string): { order: OrderView; history: Array<{ event: string; state: string; atMs: number }> } | undefined {
    const row = this.opts.core.journal.order(clientOid);
    return row ? { order: orderView(row), history: this.opts.core.journal.history(clientOid) } : undefined;
  }

  fills(query: { strategyId?: string; limit?: number }): FillView[] {
    return this.opts.core.journal
      .fills({ ...(query.strategyId !== undefined ? { strategyId: query.strategyId } : {}), limit: query.limit ?? 100 })
      .map((f) => ({
        clientOid: f.clientOid,
        orderId: f.orderId,
        fillId: f.fillId,
        strategyId: f.strategyId,
        symbol: f.symbol,
        price: f.price,
        size: f.size,
        fee: f.fee,
        atMs: f.atMs,
      }));
  }

  balances(): Array<{ surface: string; asset: string; total: string; available: string | null }> {
    return this.opts.core.state().balances.map((b) => ({ surface: b.surface, asset: b.asset, total: b.total.toString(), available: str(b.available) }));
  }

  positions(): ReturnType<Control['positions']> {
    return this.opts.core.state().positions.map((x) => ({
      symbol: x.symbol,
      side: x.side,
      size: x.size.toString(),
      entryPrice: str(x.entryPrice),
      markPrice: str(x.markPrice),
      unrealizedPnl: str(x.unrealizedPnl),
      liquidationPrice: str(x.liquidationPrice),
    }));
  }

  equity(query: { sinceMs?: number }): Array<{ surface: string; value: string; atMs: number }> {
    return this.opts.core.journal.equitySeries({ ...(query.sinceMs !== undefined ? { sinceMs: query.sinceMs } : {}), limit: 5000 });
  }

  recentEvents(limit = 100): ControlEvent[] {
    return this.ring.slice(-Math.max(0, limit));
  }

  /** The shadow's report: none until one follows the daemon (it starts after trading does and sets this). */
  shadow: () => DivergenceReport | undefined = () => undefined;

  onEvent(listener: (e: ControlEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  // --- commands

  /**
   * Journals the command (who, why, what), runs it, journals the outcome and tells it as an event. A command that
   * throws is an outcome too (409 with its message).
   */
  private async command(
    actor: Actor,
    command: string,
    args: Record<string, unknown>,
    reason: string | undefined,
    act: () => Promise<CommandResult> | CommandResult,
  ): Promise<CommandResult> {
    const { journal } = this.opts.core;
    const clock = this.opts.clock;
    const id = journal.recordCommand({ via: actor.via, who: actor.who, command, args: JSON.stringify(args), reason: reason ?? null, atMs: clock.now() });
    let result: CommandResult;
    try {
      result = await act();
    } catch (err) {
      // A missing reason (the risk gate's RangeError) is the caller's; anything else: not now.
      result = { ok: false, status: err instanceof RangeError ? 400 : 409, error: err instanceof Error ? err.message : String(err) };
    }
    const detail = result.ok ? result.detail : result.error;
    const atMs = clock.now();
    journal.finishCommand(id, { ok: result.ok, detail, atMs });
    this.log.warn({ command, args, reason, via: actor.via, who: actor.who, ok: result.ok, detail }, 'operator command');
    this.emit('command', atMs, `${command}${args.id ? ` ${shown(args.id)}` : ''} by ${actor.via}/${actor.who}: ${result.ok ? '' : 'refused: '}${detail}`, {
      command,
      ...args,
      reason: reason ?? null,
      via: actor.via,
      who: actor.who,
      ok: result.ok,
      detail,
    });
    return result;
  }

  private known(id: string): CommandResult | undefined {
    return this.opts.core.runner.ids.includes(id) ? undefined : { ok: false, status: 404, error: `no strategy ${id}` };
  }

  pause(id: string, opts: { cancelOrders: boolean; reason?: string }, actor: Actor): Promise<CommandResult> {
    return this.command(actor, 'pause', { id, cancelOrders: opts.cancelOrders }, opts.reason, async () => {
      const unknown = this.known(id);
      if (unknown) return unknown;
      const was = this.opts.core.runner.status().find((s) => s.id === id)?.paused === true;
      this.opts.core.runner.pause(id);
      const canceled = opts.cancelOrders ? `; ${await this.cancelOwn(id)}` : '';
      return { ok: true, detail: `${id} ${was ? 'was already paused' : 'paused: no new intents'}${canceled}` };
    });
  }

  resume(id: string, actor: Actor, reason?: string): Promise<CommandResult> {
    return this.command(actor, 'resume', { id }, reason, () => {
      const unknown = this.known(id);
      if (unknown) return unknown;
      const s = this.opts.core.runner.status().find((x) => x.id === id)!;
      this.opts.core.runner.resume(id);
      const faulted = s.faulted ? ` (still faulted: ${s.reason ?? 'errors'})` : '';
      return { ok: true, detail: `${id} ${s.paused ? 'resumed' : 'was not paused'}${faulted}` };
    });
  }

  reload(actor: Actor, reason?: string): Promise<CommandResult> {
    return this.command(actor, 'reload', {}, reason, async () => {
      const problems = await this.opts.reload();
      return problems.length
        ? { ok: false, status: 409, error: `config reload refused, the running config stays: ${problems.join('; ')}` }
        : { ok: true, detail: 'strategy params reloaded' };
    });
  }

  cancelOrders(id: string, actor: Actor, reason?: string): Promise<CommandResult> {
    return this.command(actor, 'cancel-orders', { id }, reason, async () => this.known(id) ?? { ok: true, detail: await this.cancelOwn(id) });
  }

  /** Intents taken before a pause (queued, or being sent) are waited for: their orders are then known. */
  private async drain(): Promise<void> {
    const { core } = this.opts;
    for (let round = 0; round < MAX_DRAIN_ROUNDS && (core.queued() > 0 || core.inFlight.size > 0); round++) await Promise.allSettled([...core.inFlight]);
  }

  /**
   * Cancels a strategy's open orders (of one symbol, when given) through the executor, as its own intents: its plain
   * orders per symbol, and its trigger orders that would open a position (stops that protect one stay, as with the
   * kill action).
   */
  private async cancelOwn(id: string, symbol?: string): Promise<string> {
    const { core } = this.opts;
    const { executor, journal } = core;
    await this.drain();
    const rows = journal.activeOrders().filter((r) => r.strategyId === id && (symbol === undefined || r.symbol === symbol));
    const events: ExecutionEvent[] = [];
    const groups = new Map(rows.filter((r) => !r.isTrigger).map((r) => [`${r.surface} ${r.symbol}`, r]));
    for (const r of groups.values()) events.push(...(await executor.submit({ kind: 'cancel-all', strategyId: id, surface: r.surface, symbol: r.symbol })));
    for (const r of rows.filter((x) => x.isTrigger && !x.reduceOnly && x.orderId)) {
      events.push(...(await executor.submit({ kind: 'cancel-trigger', strategyId: id, symbol: r.symbol, orderId: r.orderId! })));
    }
    const canceled = events.filter((e) => e.type === 'canceled').length;
    const left = journal
      .activeOrders()
      .filter((r) => r.strategyId === id && (symbol === undefined || r.symbol === symbol) && !(r.isTrigger && r.reduceOnly)).length;
    return `${canceled} order(s) canceled${left ? `, ${left} still open (settled at the next reconciliation)` : ''}`;
  }

  halt(reason: string, actor: Actor): Promise<CommandResult> {
    return this.command(actor, 'halt', {}, reason, () => {
      this.opts.core.risk.kill(reason);
      return { ok: true, detail: `halted: ${this.opts.core.risk.latchReason() ?? reason.trim()} (the kill action of risk.onKill follows)` };
    });
  }

  reduce(reason: string, actor: Actor): Promise<CommandResult> {
    return this.command(actor, 'reduce', {}, reason, () => {
      this.opts.core.risk.reduce(reason);
      return { ok: true, detail: `reducing: ${this.opts.core.risk.reduceReason() ?? reason.trim()}` };
    });
  }

  reset(reason: string, actor: Actor): Promise<CommandResult> {
    return this.command(actor, 'reset', {}, reason, () => {
      if (reason.trim() === '') return { ok: false, status: 400, error: 'a reset needs a reason: it is journaled' };
      const risk = this.opts.core.risk;
      const was = [risk.latchReason(), risk.reduceReason()].filter((r) => r !== undefined);
      risk.reset();
      return { ok: true, detail: was.length ? `cleared: ${was.join('; ')}` : 'nothing was latched' };
    });
  }

  flatten(reason: string, actor: Actor): Promise<CommandResult> {
    return this.command(actor, 'flatten', {}, reason, async () => {
      if (reason.trim() === '') return { ok: false, status: 400, error: 'a flatten needs a reason: it is journaled' };
      return { ok: true, detail: `halted and flattening: ${await this.opts.flatten(() => this.opts.core.risk.kill(reason))}` };
    });
  }

  clearAuthHalt(actor: Actor, reason?: string): Promise<CommandResult> {
    return this.command(actor, 'clear-auth-halt', {}, reason, async () => clearedResult(await this.opts.core.clearAuthHalt()));
  }

  /**
   * Pauses the strategy and keeps it paused: a strategy that keeps a target (a grid, a market maker, an entry rule
   * still true) would trade straight back in, and its resting orders could fill and open the position again, so the
   * close would undo nothing. (Freqtrade's forceexit does not pause: its trades are discrete, and a new entry waits
   * for a new signal.) Then: the intents it queued before the pause are waited for, its orders on the symbol are
   * canceled (opening triggers too; stops stay until the close has filled), what it holds is worked out again, and
   * the closing order goes through the risk gate and the executor as the strategy's own (its client id journaled
   * before the send). While paused its inventory still takes the close's fills; /resume lets it trade again.
   */
  forceExit(id: string, symbol: string, actor: Actor, reason?: string): Promise<CommandResult> {
    return this.command(actor, 'force-exit', { id, symbol }, reason, () => this.known(id) ?? this.exits.run(id, symbol));
  }
}
