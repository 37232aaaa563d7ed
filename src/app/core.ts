// The trading core, built once and the same for every mode (daemon, dry-run, backtest, test fixtures): strategies,
// risk gate, executor, order tracker, stop manager, the trading loop over a venue's market-data streams, reconciliation before
// trading and on schedule, strategy schedules. The handle it returns is what the commands, the ops endpoints and a
// future operator API read and drive; which venue, streams and clock it gets is the kernel's choice.
import { Subscription, type Observable } from 'rxjs';
import type { Stamped } from '../data/poll.js';
import type { BarNeed, BarSource } from '../data/bar-feed.js';
import type { PolledSymbols } from '../data/polls.js';
import type { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent, TradingState } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import type { Balance, Instrument, Position, PublicTrade, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExchangeClient } from '../exchange/client.js';
import { Executor } from '../execution/executor.js';
import type { KillHooks } from '../execution/kill-points.js';
import { OrderTracker, reconcileAndOpen, type ReconcileReport } from '../execution/order-tracker.js';
import { RiskGate, type RiskLimits } from '../execution/risk.js';
import { StopManager, type StopSettings } from '../execution/stop-manager.js';
import { watchLiquidation, type LiquidationRules } from '../execution/liquidation-watch.js';
import type { Journal, JournalOrder } from '../journal/journal.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyRunner, type StateStore, type StrategyInstanceConfig, type StrategyRunnerOptions, type StrategyStatus } from '../strategy/runner.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Schedules } from './cron.js';
import { KeyGate, type AuthHaltCleared, type KeyCheck } from './key-gate.js';
import { LatestTickers, startTradingLoop, streamsInOrder, type MarketStreams, type TradingLoop } from './trading-loop.js';

/** The symbols the strategies trade, by surface (from the instruments). */
export interface TradedSymbols extends PolledSymbols {
  all: string[];
  spot: string[];
  futures: string[];
  /** The bar series the strategies asked for, and the spot pairs among their symbols (their trades are polled). */
  bars: BarNeed[];
  barSpot: string[];
}

export type { KeyCheck } from './key-gate.js';

/** A venue bound to the symbols traded: where orders go, what the strategies watch. */
export interface BoundVenue {
  trading: ExchangeClient;
  streams?: MarketStreams;
  /** Before the strategies see a tickers update (a paper venue follows the market here). */
  beforeTickers?: (tickers: Stamped<Map<string, Ticker>>) => void;
  keys?: KeyCheck;
  /** The bars of the series asked for (none asked: absent). */
  bars?: BarSource;
  /** The spot pairs' polled public trades (S9), when the venue reads them for all of them: a shadow replays them. */
  trades$?: Observable<Stamped<PublicTrade[]>>;
}

/** The execution settings of the order tracker (config `execution`). */
export interface TrackingSettings {
  graceMs: number;
  lostAfterChecks: number;
  notPlacedAfterChecks?: number;
  vanishAfterMs?: number;
  vanishAfterChecks?: number;
  /** Managed stops (config `execution.stops`); absent: the defaults. */
  stops?: StopSettings;
}

export interface CoreOptions {
  instruments: Map<string, Instrument>;
  /** Binds the venue once the traded symbols are known. */
  bind(symbols: TradedSymbols): BoundVenue;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  limits: RiskLimits;
  /** How the venue margins futures: the positions' distance to liquidation is worked out for the risk gate (absent: not watched). */
  margin?: LiquidationRules;
  tracking: TrackingSettings;
  strategies?: {
    instances: StrategyInstanceConfig[];
    dirs: string[];
    maxErrors: number;
    store?: StateStore;
    restartFaultedAfterMs?: number;
    hookTimeoutMs?: number;
  };
  /** Loaded strategy definitions by name, instead of loading them from `strategies.dirs`. */
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** New orders wait for the first reconciliation (live); false trades at once (a backtest: nothing to settle). */
  fencedUntilReconciled?: boolean;
  /**
   * The open-order caps count the orders the venue listed, as well as the journal's: `true` takes those of the last
   * orders poll; a function supplies them (test fixtures).
   */
  capsCountListed?: boolean | (() => readonly Order[]);
  /** Symbols scanned for orders we did not create (default: the traded symbols). */
  scanSymbols?: PolledSymbols;
  /** Reference prices for the risk gate instead of the tickers stream's (test fixtures). */
  reference?: (symbol: string) => { price: Decimal; atMs: number } | undefined;
  hooks?: KillHooks;
  onIntent?: (intent: Intent) => void;
  onEvent?: (event: ExecutionEvent) => void;
  onEquity?: (bySurface: Record<string, Decimal>, atMs: number) => void;
  yieldAfterIntent?: () => Promise<void>;
}

/** What the core holds now: the read side of the handle. */
export interface CoreState {
  strategies: StrategyStatus[];
  orders: JournalOrder[];
  positions: Position[];
  balances: Balance[];
  /** Equity by surface at trusted prices, as last valued (undefined before the first valuation). */
  equity: { bySurface: Record<string, Decimal>; atMs: number } | undefined;
  tradingState: TradingState;
  fenced: string | null;
  /** The orders that hold the fence, from the last reconciliation. */
  pending: ReconcileReport['pending'];
}

export interface Core {
  readonly instruments: Map<string, Instrument>;
  readonly symbols: TradedSymbols;
  readonly journal: Journal;
  readonly risk: RiskGate;
  readonly executor: Executor;
  readonly tracker: OrderTracker;
  /** Managed stops: the protection strategies ask for (protect intents), kept in line with their positions. */
  readonly stops: StopManager;
  readonly runner: StrategyRunner;
  readonly venue: BoundVenue;
  /** Reconciles the journal with the venue (the first one lifts the fence once nothing is unsettled); asked while one runs, joins it. */
  reconcile(opts?: { scanForeign?: boolean; startup?: boolean }): Promise<void>;
  /** Starts trading: the loop over the streams, the strategies' onStart, then the schedules (reconciliation first). */
  start(schedules?: Schedules, reconcileCron?: string, strategySchedules?: Array<{ id: string; schedule: Record<string, string> }>): void;
  /** Nothing more reaches the strategies or the executor; writes in flight finish on their own. */
  stopIntake(): void;
  /** Writes in flight (a stop waits for them). */
  readonly inFlight: ReadonlySet<Promise<unknown>>;
  /** Intents waiting for the one in flight. */
  queued(): number;
  /** Work going on in promise continuations: writes in flight and a reconciliation. */
  busy(): number;
  state(): CoreState;
  /** When the last reconciliation completed (null: none has yet). */
  lastReconciledAtMs(): number | null;
  /** Applies new strategy params, all or nothing; returns the problems (nothing applied then). Instances, names and symbols cannot change. */
  updateParams(instances: StrategyInstanceConfig[]): string[];
  /** Clears the authentication halt (an operator fixed the keys), then a reconciliation probes the keys with a signed read before the fence lifts. */
  clearAuthHalt(): Promise<AuthHaltCleared>;
}

/** Builds the core: the strategies loaded, the symbols they trade, the venue bound to them, bars warmed. */
export async function buildCore(opts: CoreOptions): Promise<Core> {
  const risk = new RiskGate(opts.limits, opts.journal, opts.clock);
  const runner = await strategyRunner(opts);
  const symbols = tradedSymbols(runner, opts.instruments);
  const venue = opts.bind(symbols);
  await warmBars(venue, runner, symbols.bars);
  return new TradingCore(opts, { risk, runner, symbols, venue });
}

/** The strategy instances of the config (or the definitions given), loaded and checked. */
async function strategyRunner(opts: CoreOptions): Promise<StrategyRunner> {
  const { instruments, logger, clock } = opts;
  const st = opts.strategies;
  const instances: StrategyRunnerOptions['instances'] = [];
  for (const s of st?.instances ?? []) instances.push({ cfg: s, def: opts.definitions?.get(s.name) ?? (await loadStrategy(s.name, st!.dirs)) });
  return new StrategyRunner({
    instances,
    instruments,
    logger,
    maxErrors: st?.maxErrors ?? 0,
    ...(st?.store ? { store: st.store } : {}),
    ...(st?.restartFaultedAfterMs ? { restartFaultedAfterMs: st.restartFaultedAfterMs } : {}),
    ...(st?.hookTimeoutMs !== undefined ? { hookTimeoutMs: st.hookTimeoutMs } : {}),
    clock,
  });
}

/** The symbols the strategies trade, by surface, and the bar series they asked for. */
function tradedSymbols(runner: StrategyRunner, instruments: ReadonlyMap<string, Instrument>): TradedSymbols {
  const all = runner.symbols();
  const bars = runner.barNeeds();
  const spot = all.filter((s) => instruments.get(s)?.surface === 'spot');
  const barSymbols = new Set(bars.map((n) => n.symbol));
  return { all, spot, futures: all.filter((s) => instruments.get(s)?.surface === 'futures'), bars, barSpot: spot.filter((s) => barSymbols.has(s)) };
}

/** Bars: the forming one read where it is built; the history warmed before the strategies start. */
async function warmBars(venue: BoundVenue, runner: StrategyRunner, needs: BarNeed[]): Promise<void> {
  const source = venue.bars;
  if (!source) return;
  for (const n of needs) runner.formingFrom(n.symbol, n.timeframe, () => source.forming(n.symbol, n.timeframe));
  for (const { need, bars: history } of (await source.warm?.()) ?? []) runner.warm(need.symbol, need.timeframe, history);
}

type Reconciliation = { scanForeign?: boolean; startup?: boolean };

/** The core's handle over its parts, and the state it keeps: the account as last read, the fence's reasons. */
class TradingCore implements Core {
  readonly instruments: Map<string, Instrument>;
  readonly symbols: TradedSymbols;
  readonly journal: Journal;
  readonly risk: RiskGate;
  readonly executor: Executor;
  readonly tracker: OrderTracker;
  readonly stops: StopManager;
  readonly runner: StrategyRunner;
  readonly venue: BoundVenue;
  private readonly log: Logger;
  private readonly latest: LatestTickers;
  private readonly streams: MarketStreams | undefined;
  private readonly keys: KeyGate;
  // What the venue listed at the last poll, and the account as last read.
  private listed: Order[] = [];
  private positions: Position[] = [];
  private balances: Balance[] = [];
  private equity: CoreState['equity'];
  private lastReport: ReconcileReport | undefined;
  private reconciledAtMs: number | null = null;
  private reconciling: Promise<void> | undefined;
  private loop: TradingLoop | undefined;
  private schedules: Schedules | undefined;
  private readonly noneInFlight = new Set<Promise<unknown>>();
  private readonly subs = new Subscription();

  constructor(
    private readonly opts: CoreOptions,
    parts: { risk: RiskGate; runner: StrategyRunner; symbols: TradedSymbols; venue: BoundVenue },
  ) {
    ({ risk: this.risk, runner: this.runner, symbols: this.symbols, venue: this.venue } = parts);
    ({ instruments: this.instruments, journal: this.journal } = opts);
    const { venue, instruments } = this;
    this.log = opts.logger.child({ component: 'core' });
    // Answers older than one already applied are left out: an account read must never go back in time. (A backtest's
    // virtual polls answer in order: its hot path is spared the filter.)
    const streams = venue.streams && (opts.fencedUntilReconciled === false ? venue.streams : streamsInOrder(venue.streams));
    this.streams = streams && venue.bars ? { ...streams, bar$: venue.bars.bar$ } : streams;
    this.latest = new LatestTickers(opts.limits.outlierPct);
    this.executor = this.newExecutor();
    if (opts.fencedUntilReconciled === false) this.executor.unfence();
    this.tracker = this.newTracker();
    const { executor, tracker, journal } = this;
    const { clock, logger } = opts;
    const stopSettings = opts.tracking.stops ? { settings: opts.tracking.stops } : {};
    this.stops = new StopManager({ executor, tracker, journal, clock, logger, instruments, strategyIds: this.runner.ids, ...stopSettings });
    executor.keepProtectionWith(this.stops);
    executor.settleLeftOutWith(this.tracker);
    // Trading stays fenced (cancels allowed) until a signed request has succeeded (keys that work), and whenever the
    // authentication halt has tripped; then until a reconciliation has settled every order.
    const surfaces = [...new Set(this.symbols.all.map((s) => instruments.get(s)!.surface))];
    this.keys = new KeyGate(venue.keys, surfaces, executor, this.log);
  }

  private newExecutor(): Executor {
    const { opts, journal, risk, instruments } = this;
    const caps = opts.capsCountListed;
    return new Executor({
      client: this.venue.trading,
      journal,
      risk,
      clock: opts.clock,
      logger: opts.logger,
      instruments,
      reference: opts.reference ?? this.latest.reference,
      ...(caps ? { listed: typeof caps === 'function' ? caps : () => this.listed } : {}),
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
    });
  }

  private newTracker(): OrderTracker {
    const { opts, journal } = this;
    const t = opts.tracking;
    const scan = opts.scanSymbols ?? this.symbols;
    return new OrderTracker({
      client: this.venue.trading,
      journal,
      clock: opts.clock,
      logger: opts.logger,
      graceMs: t.graceMs,
      lostAfterChecks: t.lostAfterChecks,
      ...(t.notPlacedAfterChecks !== undefined ? { notPlacedAfterChecks: t.notPlacedAfterChecks } : {}),
      ...(t.vanishAfterMs !== undefined ? { vanishAfterMs: t.vanishAfterMs } : {}),
      ...(t.vanishAfterChecks !== undefined ? { vanishAfterChecks: t.vanishAfterChecks } : {}),
      symbols: { spot: [...scan.spot], futures: [...scan.futures] },
      events$: this.executor.events$,
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
    });
  }

  /** A reconciliation, or undefined when it is skipped as idle (a schedule then has nothing to wait for). */
  private reconcileUnlessIdle(ropts: Reconciliation): Promise<void> | undefined {
    if (this.reconciling) return this.reconciling;
    const { executor, journal } = this;
    // With nothing to resolve and nothing to scan, a reconciliation sends no request: it is skipped (decided as it
    // is asked for; a venue with keys to check checks them first).
    const idle = () => !ropts.scanForeign && !ropts.startup && !executor.fenced && journal.activeOrders().length === 0;
    if (!this.venue.keys && idle()) return undefined;
    this.reconciling = (async () => {
      if (!(await this.keys.usable())) return;
      if (idle()) return;
      const report = await reconcileAndOpen(this.tracker, executor, this.log, ropts);
      if (report) {
        this.lastReport = report;
        this.reconciledAtMs = this.opts.clock.now();
      }
    })().finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  reconcile(ropts: Reconciliation = {}): Promise<void> {
    return this.reconcileUnlessIdle(ropts) ?? Promise.resolve();
  }

  async clearAuthHalt(): Promise<AuthHaltCleared> {
    const { keys, executor } = this;
    const cleared = keys.clearHalt();
    // A reconciliation under way may have read the halt before it was cleared: the probe is the next one's.
    while (this.reconciling) await this.reconciling.catch(() => undefined);
    if (keys.checked) await this.reconcile();
    return { checked: keys.checked, cleared, keysWork: keys.keysWork, fenced: executor.fenced };
  }

  start(sched?: Schedules, reconcileCron?: string, strategySchedules: Array<{ id: string; schedule: Record<string, string> }> = []): void {
    if (this.streams) {
      this.watchAccount(this.streams);
      this.loop = this.startLoop(this.streams);
    }
    this.venue.bars?.start();
    this.schedules = sched;
    if (sched && reconcileCron) sched.add('reconcile', reconcileCron, () => this.reconcileUnlessIdle({}));
    const { runner, opts } = this;
    for (const s of strategySchedules)
      for (const [hook, expr] of Object.entries(s.schedule)) sched?.add(`${s.id}.${hook}`, expr, () => runner.onSchedule(s.id, hook, opts.clock.now()));
    runner.start();
  }

  /** The account as last read: the core's state, and the risk rules' snapshot; the distance to liquidation as it moves. */
  private watchAccount(streams: MarketStreams): void {
    const { subs, risk, opts } = this;
    subs.add(streams.openOrders$.subscribe((x) => (this.listed = x.value)));
    subs.add(
      streams.positions$.subscribe((x) => {
        this.positions = x.value;
        risk.observeAccount({ positions: x.value, atMs: x.atMs });
      }),
    );
    subs.add(
      streams.balances$.subscribe((x) => {
        this.balances = x.value;
        risk.observeAccount({ balances: x.value, atMs: x.atMs });
      }),
    );
    // Worked out when read, as positions, balances and tickers update.
    if (opts.margin) subs.add(watchLiquidation(streams, this.instruments, opts.margin, (read, atMs) => risk.observeLiquidation(read, atMs)));
  }

  /** The trading loop over the streams: market data to the strategies, their intents to the executor. */
  private startLoop(streams: MarketStreams): TradingLoop {
    const { opts, venue } = this;
    const { clock, logger } = opts;
    const { latest, runner, executor, journal, risk, stops, instruments } = this;
    return startTradingLoop({
      streams,
      latest,
      runner,
      executor,
      journal,
      risk,
      stops,
      clock,
      logger,
      instruments,
      ...(venue.beforeTickers ? { beforeTickers: venue.beforeTickers } : {}),
      ...(opts.onIntent ? { onIntent: opts.onIntent } : {}),
      ...(opts.onEvent ? { onEvent: opts.onEvent } : {}),
      onEquity: (bySurface, atMs) => {
        this.equity = { bySurface, atMs };
        opts.onEquity?.(bySurface, atMs);
      },
      ...(opts.yieldAfterIntent ? { yieldAfterIntent: opts.yieldAfterIntent } : {}),
      // Where there may be an account from before (not a backtest's), strategies wait until it has been read.
      accountFirst: opts.fencedUntilReconciled !== false,
    });
  }

  stopIntake(): void {
    this.venue.bars?.stop();
    this.loop?.stop();
    this.subs.unsubscribe();
    this.schedules?.stop();
  }

  get inFlight(): ReadonlySet<Promise<unknown>> {
    return this.loop?.inFlight ?? this.noneInFlight;
  }

  queued(): number {
    return this.loop?.queued() ?? 0;
  }

  busy(): number {
    return (this.loop?.inFlight.size ?? 0) + (this.reconciling ? 1 : 0);
  }

  updateParams(next: StrategyInstanceConfig[]): string[] {
    const { runner } = this;
    const current = this.opts.strategies?.instances ?? [];
    const problems: string[] = [];
    const byId = new Map(next.map((s) => [s.id, s]));
    for (const s of current) {
      const n = byId.get(s.id);
      if (!n || n.name !== s.name || JSON.stringify(n.symbols) !== JSON.stringify(s.symbols))
        problems.push(`strategies[${s.id}]: only params can change without a restart`);
    }
    for (const id of byId.keys()) if (!current.some((s) => s.id === id)) problems.push(`strategies[${id}]: adding a strategy needs a restart`);
    if (problems.length) return problems;
    // Validate every instance first, then apply: all or nothing.
    const trial = next.flatMap((s) => runner.checkParams(s.id, s.params));
    if (trial.length) return trial;
    for (const s of next) runner.updateParams(s.id, s.params);
    return [];
  }

  lastReconciledAtMs(): number | null {
    return this.reconciledAtMs;
  }

  state(): CoreState {
    const { executor } = this;
    return {
      strategies: this.runner.status(),
      orders: this.journal.activeOrders(),
      positions: this.positions,
      balances: this.balances,
      equity: this.equity,
      tradingState: this.risk.state(),
      fenced: executor.fenced,
      pending: executor.fenced ? (this.lastReport?.pending ?? []) : [],
    };
  }
}
