// The daemon: the venue the kernel chooses, the trading core over it, the journal, schedules, the activity log,
// the kill switch's action and the funding watch, the operator's Control and the ops server (health, metrics, the
// control API); a clean stop, and strategy params reloaded without a restart.
import { Subscription } from 'rxjs';
import { formatIssue, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { marginSettingsOf } from '../domain/margin.js';
import { ENDPOINTS, chargesOf, isEndpointId } from '../exchange/endpoints.js';
import type { Journal } from '../journal/journal.js';
import type { Control } from '../ops/control.js';
import { startNotifiers } from '../ops/notify/notifiers.js';
import { nextTurn, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { AccountLease } from './account-lease.js';
import { fenceJournal, StartAbandonedError } from './standby.js';
import { ActivityLog } from './activity-log.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { loadCheckedConfig } from './config-check.js';
import { ControlService } from './control-service.js';
import { buildCore, type Core } from './core.js';
import { Schedules } from './cron.js';
import { startDaemonOps, type DaemonOps } from './daemon-ops.js';
import { Metrics } from './http.js';
import { openVenue, riskLimits, strategySettings, type Venue } from './kernel.js';
import { openJournalWaiting, venueOf } from './kernel-stores.js';
import { startRiskWatches, type RiskWatches } from './risk-watches.js';
import { shutdownCore } from './shutdown.js';
import { Shadow } from './shadow.js';
import { shown } from '../util/shown.js';
import { shadowed } from './poll-plan.js';
import { divergenceSummary } from '../report/divergence.js';

export interface Daemon {
  opsUrl: string;
  /** The dashboard's sign-in link with a token generated at this start (print it once, never log it); undefined for a configured token. */
  signInUrl: string | undefined;
  simUrl: string | undefined;
  /** The operator's control (what the control API serves). */
  control: Control;
  /**
   * Stops intake, drains in-flight writes, optionally cancels (daemon.shutdown, unless `cancelOpenOrders` says
   * otherwise), flushes; resolves to the exit code.
   */
  stop(reason: string, opts?: { cancelOpenOrders?: boolean }): Promise<number>;
  /** With an account lease: resolves with the reason when it is lost (intake is closed by then). */
  leaseLost?: Promise<string>;
  /** Applies what can change without a restart (strategy params); returns the problems (nothing applied then). */
  reload(next: LoadedConfig): string[];
  /** Reads the config file again and applies it as reload() does (SIGHUP, the control API); returns the problems. */
  reloadFile(): Promise<string[]>;
}

export interface DaemonOptions {
  /** Loaded strategy definitions by name, instead of loading them from `strategyDirs` (embedding, tests). */
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** The account's lease, held (see standby.ts): its token fences every journal write; it is kept while trading. */
  lease?: AccountLease;
  /** Resolves with a reason when the start is to be given up (a signal): only a wait for the journal heeds it. */
  stop?: Promise<string>;
}

/** Starts the daemon: venue, journal (fenced with the lease's token), core, control, reconciliation, trading, the risk
 * watches and the ops server, in that order; whatever was opened is closed again if a step fails. */
export async function startDaemon(loaded: LoadedConfig, logger: Logger, clock: Clock, opts: DaemonOptions = {}): Promise<Daemon> {
  const s = new DaemonStart(loaded, logger, clock, opts);
  try {
    const venue = await openDaemonVenue(s);
    const journal = await openFencedJournal(s);
    const activity = openActivityLog(s);
    const core = await buildDaemonCore(s, venue, journal, activity);
    const reload = reloaderOf(s, core);
    const control = startControl(s, core, venue, reload.reloadFile);
    s.subs.add(core.risk.tradingStates$.subscribe(activity.event));
    s.subs.add(core.executor.events$.subscribe(activity.event));
    await startTrading(s, core, venue, journal);
    watchAccount(s, core);
    const ops = await startDaemonOps({ core, venue, metrics: s.metrics, lastPolled: s.lastPolled, cfg: s.cfg, clock, logger, control });
    s.onClose(() => ops.close());
    startShadow(s, core, journal, control);
    s.log.info(
      { opsUrl: ops.url, ...(ops.tokenFile ? { tokenFile: ops.tokenFile } : {}), strategies: core.runner.ids, symbols: core.symbols.all },
      'daemon running',
    );
    return daemonHandle(s, { core, venue, control, ops, ...reload });
  } catch (err) {
    await s.closeAll();
    throw err;
  }
}

/** A daemon being started: what its steps share, and what to close (in reverse order of opening) when it stops. */
class DaemonStart {
  readonly cfg: Config;
  readonly log: Logger;
  readonly metrics = new Metrics();
  /** When each poll last succeeded, by name. */
  readonly lastPolled = new Map<string, number>();
  /** Order activity's subscriptions, ended with the daemon (the cancels on shutdown are told too). */
  readonly subs = new Subscription();
  /** The gauges' and the risk watches' subscriptions: they end with intake (they keep the polls going). */
  readonly gauges = new Subscription();
  /** Resolves with the reason when the account lease is lost (intake is closed by then). */
  readonly leaseLost: Promise<string> | undefined;
  /** What takes in market data and intents, once built: closed first when the lease is lost. */
  intake: Pick<Core, 'stopIntake'> | undefined;
  /** The operator's control, once made: equity reaches it from the start. */
  control: ControlService | undefined;
  /** The shadow, once one follows the daemon (config `shadow`): stopped after the live shutdown, its report written. */
  shadow: Shadow | undefined;
  /** The stop has begun (a shadow that finishes starting now is stopped at once). */
  stopping = false;
  /** The risk watches, once started: the operator's flatten runs there. */
  watches: RiskWatches | undefined;
  private readonly closers: Array<() => Promise<void> | void> = [];

  constructor(
    readonly loaded: LoadedConfig,
    readonly logger: Logger,
    readonly clock: Clock,
    readonly opts: DaemonOptions,
  ) {
    this.cfg = loaded.config;
    this.log = logger.child({ component: 'daemon' });
    // The lease renewed from the start; lost, nothing more is taken in (the stop follows, without cancels: the
    // orders are the next holder's now).
    const lease = opts.lease;
    this.leaseLost = lease
      ? new Promise<string>((resolve) =>
          lease.keep((reason) => {
            this.intake?.stopIntake();
            resolve(reason);
          }),
        )
      : undefined;
  }

  /** Closed at stop, after what was opened later; `last`: after everything opened so far or later. */
  onClose(close: () => Promise<void> | void, last = false): void {
    if (last) this.closers.unshift(close);
    else this.closers.push(close);
  }

  async closeAll(): Promise<void> {
    for (const close of this.closers.splice(0).reverse())
      await Promise.resolve(close()).catch((e: unknown) => this.log.warn({ err: String(e) }, 'close failed'));
    // Given up last, once nothing more is written: a standby then takes over at once.
    await this.opts.lease?.close();
  }
}

/** The venue the kernel chooses, its requests counted in the metrics, writes allowed only while the lease is held. */
async function openDaemonVenue(s: DaemonStart): Promise<Venue> {
  const { metrics, lastPolled, opts } = s;
  const lease = opts.lease;
  const venue = await openVenue(s.loaded, {
    logger: s.logger,
    clock: s.clock,
    onPolled: (name, at) => lastPolled.set(name, at),
    ...(lease ? { writesAllowed: () => lease.held() } : {}),
    onAttempt: (endpoint, outcome) => {
      metrics.requests.inc({ endpoint, outcome });
      if (outcome === 'rate-limit') metrics.rateLimited.inc();
      const e = isEndpointId(endpoint) ? ENDPOINTS[endpoint] : undefined;
      if (e) for (const c of chargesOf(e)) if (c.kind !== 'orders') metrics.weight.inc({ endpoint, pool: c.pool }, c.weight);
    },
  });
  s.onClose(() => venue.close());
  return venue;
}

/** The journal before anything is sent: one that belongs to another venue or account stops the start. Closed last.
 * Opening waits while a frozen process keeps it locked (journal.lockWaitMs); with a lease, it is fenced with its token
 * (waiting likewise). Either wait is given up on a stop or a lost lease. */
async function openFencedJournal(s: DaemonStart): Promise<Journal> {
  const { loaded, log, opts, clock, logger } = s;
  const lease = opts.lease;
  const lost = s.leaseLost ? [s.leaseLost.then((r) => new StartAbandonedError(`the account lease was lost (${r})`, false))] : [];
  const stopped = opts.stop ? [opts.stop.then((r) => new StartAbandonedError(r, true))] : [];
  const until = Promise.race([...lost, ...stopped]);
  const journal = await openJournalWaiting(loaded, venueOf(loaded), {
    clock,
    logger,
    until,
    onMovedAside: (file) => log.info({ previous: file }, 'a fresh venue at every start: a fresh journal; the previous one is kept'),
  });
  s.onClose(() => journal.close(), true);
  if (lease) await fenceJournal(journal, lease.fencingToken!, { clock, logger, until });
  return journal;
}

/** Order activity (repeated denials folded into counts): told until the very end; its counts summed up after that. */
function openActivityLog(s: DaemonStart): ActivityLog {
  const activity = new ActivityLog(s.logger, s.clock);
  s.onClose(() => activity.close());
  s.onClose(() => s.subs.unsubscribe());
  return activity;
}

/** The core, its strategies' state kept in the journal, its events and intents counted and logged as activity. */
async function buildDaemonCore(s: DaemonStart, venue: Venue, journal: Journal, activity: ActivityLog): Promise<Core> {
  const { cfg, metrics, clock, loaded, opts } = s;
  return buildCore({
    instruments: await venue.instruments(),
    bind: venue.bind,
    journal,
    clock,
    logger: s.logger,
    limits: riskLimits(loaded),
    tracking: cfg.execution,
    margin: marginSettingsOf(cfg.exchange.margin),
    strategies: strategySettings(cfg, { load: (id) => journal.strategyState(id), save: (id, json) => journal.saveStrategyState(id, json, clock.now()) }),
    capsCountListed: true,
    ...(opts.definitions ? { definitions: opts.definitions } : {}),
    onEvent: (e) => {
      metrics.events.inc({ type: e.type });
      if (e.type === 'denied') metrics.denials.inc({ reason: e.reason });
    },
    onIntent: (intent) => {
      metrics.intents.inc({ strategy: intent.strategyId, kind: intent.kind });
      activity.intent(intent);
    },
    // A turn of the event loop after each intent: timers, polls, /health and signals keep running.
    yieldAfterIntent: nextTurn,
    onEquity: (bySurface, atMs) => {
      for (const [surface, value] of Object.entries(bySurface)) metrics.equity.set({ surface }, value.toNumber());
      s.control?.equityChanged(bySurface, atMs);
    },
  });
}

/** Strategy params applied without a restart: from a loaded config, or read again from the config file. */
function reloaderOf(s: DaemonStart, core: Core): Pick<Daemon, 'reload' | 'reloadFile'> {
  const { log, loaded } = s;
  const reload = (next: LoadedConfig): string[] => {
    const problems = core.updateParams(next.config.strategies);
    if (!problems.length) {
      log.info({ strategies: next.config.strategies.map((x) => x.id) }, 'strategy params reloaded');
      // The shadow trades the same params, or every later difference would read as the strategy's decision.
      s.shadow?.core.updateParams(next.config.strategies);
    }
    return problems;
  };
  const reloadFile = async (): Promise<string[]> => {
    let problems: string[];
    try {
      // Symbols cannot change without a restart: the list known offline is enough. The params are checked by the
      // running strategies' own schemas as they are applied (all or nothing): the modules are not loaded again.
      const next = await loadCheckedConfig(loaded.file, { strategies: false });
      problems = next.ok ? reload(next.check.loaded) : next.issues.map(formatIssue);
    } catch (err) {
      problems = [(err as Error).message];
    }
    if (problems.length) log.warn({ problems }, 'config reload refused: the running config stays');
    return problems;
  };
  return { reload, reloadFile };
}

/** The operator's control over the core, and the notifiers and chat commands over it (config `notify`: their listener
 * only enqueues; a missing secret stops the start). */
function startControl(s: DaemonStart, core: Core, venue: Venue, reloadFile: () => Promise<string[]>): ControlService {
  const { cfg, clock, logger, opts } = s;
  const control = new ControlService({
    core,
    clock,
    logger,
    mode: cfg.mode,
    limiter: venue.client.limiter,
    lastPolled: s.lastPolled,
    reload: reloadFile,
    ...(opts.lease ? { lease: opts.lease } : {}),
    flatten: (latch) => (s.watches ? s.watches.flattenNow(latch) : Promise.reject(new Error('the daemon is not trading yet'))),
  });
  s.control = control;
  s.onClose(() => control.stop());
  const notifiers = startNotifiers(cfg.notify, control, { clock, logger });
  if (notifiers) s.onClose(() => notifiers.stop(1000));
  return control;
}

/** Reconciliation before any new order; then trading, with reconciliation, instrument refreshes and housekeeping on schedule. */
async function startTrading(s: DaemonStart, core: Core, venue: Venue, journal: Journal): Promise<void> {
  const { cfg, log, opts } = s;
  s.intake = core;
  await core.reconcile({ scanForeign: true, startup: true });
  if (opts.lease && !opts.lease.held()) throw new Error('the account lease was lost while starting: nothing traded');
  const schedules = new Schedules(s.clock, log);
  core.start(schedules, cfg.daemon.reconcileCron, cfg.strategies);
  // Instruments change rarely (new pairs, new steps): refreshed hourly.
  schedules.add('instruments', '0 7 * * * *', async () => void (await venue.instruments()));
  // Daily: a summary line, and journal housekeeping.
  schedules.add('daily', '0 5 0 * * *', () => {
    log.info({ orders: journal.countByState(), strategies: core.runner.status(), tradingState: core.risk.state() }, 'daily summary');
    journal.maintain();
  });
}

/**
 * The shadow (config `shadow`): the strategies against the simulator on the polled data, its report at the control
 * API. Off the daemon's start: it waits for the first balances and may fail without stopping the daemon (logged).
 */
function startShadow(s: DaemonStart, core: Core, journal: Journal, control: ControlService): void {
  if (!shadowed(s.cfg)) return;
  Shadow.start({
    loaded: s.loaded,
    instruments: core.instruments,
    symbols: core.symbols,
    live: { streams: core.venue.streams!, ...(core.venue.trades$ ? { trades$: core.venue.trades$ } : {}), journal },
    clock: s.clock,
    logger: s.logger,
    ...(s.opts.definitions ? { definitions: s.opts.definitions } : {}),
    // The live strategies' saved state, read (the shadow's own is never saved).
    state: (id) => journal.strategyState(id),
  }).then(
    (shadow) => {
      if (s.stopping) return void shadow.stop().catch(() => undefined);
      s.shadow = shadow;
      control.shadow = () => shadow.report();
    },
    (err: unknown) => s.log.error({ err: shown(err) }, 'shadow not started: the daemon trades on without it'),
  );
}

/** Balances and positions as gauges (display only: floats are fine on a dashboard), and the risk watches (the kill
 * switch's action, the funding watch); both end with intake. */
function watchAccount(s: DaemonStart, core: Core): void {
  const { metrics, gauges } = s;
  const streams = core.venue.streams!;
  gauges.add(
    streams.positions$.subscribe((p) => {
      metrics.position.reset();
      for (const x of p.value) metrics.position.set({ symbol: x.symbol, side: x.side }, x.size.toNumber());
    }),
  );
  gauges.add(streams.balances$.subscribe((b) => b.value.forEach((x) => metrics.balance.set({ surface: x.surface, asset: x.asset }, x.total.toNumber()))));
  s.watches = startRiskWatches({ core, cfg: s.cfg, metrics, lastPolled: s.lastPolled, clock: s.clock, logger: s.logger });
  gauges.add(s.watches.subscription);
}

/** The running daemon's handle: its addresses, its control, reloads, and the stop that drains and closes. */
function daemonHandle(s: DaemonStart, parts: { core: Core; venue: Venue; control: Control; ops: DaemonOps } & Pick<Daemon, 'reload' | 'reloadFile'>): Daemon {
  const { cfg, clock, log } = s;
  const { core, venue, ops } = parts;
  return {
    opsUrl: ops.url,
    signInUrl: ops.signInUrl,
    simUrl: venue.simUrl,
    control: parts.control,
    reload: parts.reload,
    reloadFile: parts.reloadFile,
    ...(s.leaseLost ? { leaseLost: s.leaseLost } : {}),
    stop: async (reason: string, stopOpts: { cancelOpenOrders?: boolean } = {}) => {
      const startedAtMs = clock.now();
      s.stopping = true;
      log.info({ reason }, 'stopping: intake closed');
      s.gauges.unsubscribe();
      const settings = { ...cfg.daemon.shutdown, ...(stopOpts.cancelOpenOrders !== undefined ? { cancelOpenOrders: stopOpts.cancelOpenOrders } : {}) };
      const drained = await shutdownCore(core, settings, clock, log, startedAtMs);
      // The shadow after the live orders are seen to (the journal still open for its report); a failure is only logged.
      if (s.shadow) {
        try {
          const { report, files } = await s.shadow.stop();
          log.info({ files, summary: divergenceSummary(report) }, 'shadow stopped: divergence report written');
        } catch (err) {
          log.error({ err: shown(err) }, 'shadow stopped without its report');
        }
      }
      await s.closeAll();
      log.info({ ms: clock.now() - startedAtMs }, 'stopped');
      return drained ? 0 : 1;
    },
  };
}
