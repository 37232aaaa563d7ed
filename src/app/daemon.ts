// The daemon: the venue the kernel chooses, the trading core over it, the journal, schedules, the activity log,
// the kill switch's action and the funding watch, the operator's Control and the ops server (health, metrics, the
// control API); a clean stop, and strategy params reloaded without a restart.
import { Subscription } from 'rxjs';
import { formatIssue, type LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { poll, type Stamped } from '../data/poll.js';
import type { Position } from '../domain/market.js';
import { marginSettingsOf } from '../domain/margin.js';
import { ENDPOINTS, chargesOf, isEndpointId } from '../exchange/endpoints.js';
import { ExchangeError } from '../exchange/errors.js';
import { FundingWatch } from '../execution/funding-watch.js';
import { KillAction, type KillActionOptions } from '../execution/kill-action.js';
import { KILL_ACTION_LATCHES } from '../execution/latches.js';
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
import { startDaemonOps } from './daemon-ops.js';
import { Metrics } from './http.js';
import { openVenue, riskLimits } from './kernel.js';
import { openJournal, venueOf } from './kernel-stores.js';
import { shutdownCore } from './shutdown.js';

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

/** The risk watches' handle: the subscription that ends them, and the operator's flatten on demand. */
interface RiskWatches {
  subscription: Subscription;
  /**
   * The kill action's flatten steps now, whatever risk.onKill says: `latch` sets the operator's kill latch, then a
   * flatten pass runs (one latched before acts only on what is left); resolves to what was done.
   */
  flattenNow(latch: () => void): Promise<string>;
}

/**
 * The kill switch's action (risk.onKill), looked at whenever the account is read or the trading state changes, and
 * the funding watch (futures traded: the ledger read every daemon.polls.ledgerMs, each settlement journaled once,
 * logged as activity and summed in a gauge). Unsubscribing ends both; a kill pass under way finishes on its own.
 * An operator's flatten takes the place of the configured action until its latch is reset.
 */
function startRiskWatches(core: Core, cfg: Config, metrics: Metrics, lastPolled: Map<string, number>, clock: Clock, logger: Logger): RiskWatches {
  const log = logger.child({ component: 'daemon' });
  const watches = new Subscription();
  const streams = core.venue.streams!;
  let positionsRead: Stamped<Position[]> | undefined;
  const killOptions: KillActionOptions = {
    mode: cfg.risk.onKill,
    client: core.venue.trading,
    executor: core.executor,
    journal: core.journal,
    clock,
    logger,
    symbols: { spot: core.symbols.spot, futures: core.symbols.futures },
    positions: () => positionsRead,
    afterPass: () => core.reconcile(),
  };
  const kill = new KillAction(killOptions);
  let flattening: KillAction | undefined;
  /** While the operator's flatten sets its latch: the pass is started by the command itself. */
  let latching = false;
  const lookAtKill = () => {
    if (latching) return;
    // The operator's flatten ends with its latch.
    if (flattening && !KILL_ACTION_LATCHES.some((name) => core.journal.latch(name))) {
      flattening.stop();
      flattening = undefined;
    }
    try {
      void (flattening ?? kill).check()?.catch((err: unknown) => log.error({ err: String(err) }, 'kill action failed'));
    } catch (err) {
      log.error({ err: String(err) }, 'kill action failed');
    }
  };
  const flattenNow = async (latch: () => void): Promise<string> => {
    flattening?.stop();
    // Made before the latch is set: a latch set now is fresh to it, and it acts at once.
    const action = new KillAction({ ...killOptions, mode: 'flatten' });
    flattening = action;
    latching = true;
    try {
      latch();
    } finally {
      latching = false;
    }
    const pass = action.check();
    if (!pass) return 'the kill latch was set before this flatten: what is left is flattened at the next positions reading';
    await pass;
    return 'flatten pass done (own orders and trigger orders canceled, futures positions closed at market; what is left is looked at again at the next positions reading)';
  };
  watches.add(
    streams.positions$.subscribe((p) => {
      positionsRead = p;
      lookAtKill();
    }),
  );
  watches.add(streams.balances$.subscribe(lookAtKill));
  watches.add(core.risk.tradingStates$.subscribe(lookAtKill));
  watches.add(() => {
    kill.stop();
    flattening?.stop();
  });

  if (core.symbols.futures.length > 0) {
    const funding = new FundingWatch({ client: core.venue.trading, journal: core.journal, clock });
    const showTotals = () => {
      for (const [symbol, total] of funding.totals()) metrics.fundingTotal.set({ symbol }, total.toNumber());
    };
    showTotals();
    const activity = logger.child({ component: 'activity' });
    const ledger$ = poll(() => funding.poll(), {
      periodMs: cfg.daemon.polls.ledgerMs,
      retries: 1,
      retryDelayMs: 1000,
      clock,
      retryable: (e) => e instanceof ExchangeError && e.retryable,
      onError: (e) => log.warn({ poll: 'ledger', err: e instanceof ExchangeError ? e.summary() : String(e) }, 'poll failed: cycle skipped'),
    });
    watches.add(
      ledger$.subscribe(({ value, atMs }) => {
        lastPolled.set('ledger', atMs);
        for (const r of value) activity.info({ event: 'funding', symbol: r.symbol, amount: r.amount, ref: r.ref, settledAtMs: r.atMs }, 'funding settled');
        if (value.length) showTotals();
      }),
    );
  }
  return { subscription: watches, flattenNow };
}

export async function startDaemon(loaded: LoadedConfig, logger: Logger, clock: Clock, opts: DaemonOptions = {}): Promise<Daemon> {
  const cfg = loaded.config;
  const log = logger.child({ component: 'daemon' });
  const metrics = new Metrics();
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch((e: unknown) => log.warn({ err: String(e) }, 'close failed'));
    // Given up last, once nothing more is written: a standby then takes over at once.
    await opts.lease?.close();
  };

  // The lease renewed from the start; lost, nothing more is taken in (the stop follows, without cancels: the
  // orders are the next holder's now).
  let intake: Pick<Core, 'stopIntake'> | undefined;
  const lease = opts.lease;
  const leaseLost = lease
    ? new Promise<string>((resolve) =>
        lease.keep((reason) => {
          intake?.stopIntake();
          resolve(reason);
        }),
      )
    : undefined;
  try {
    const lastPolled = new Map<string, number>();
    const venue = await openVenue(loaded, {
      logger,
      clock,
      onPolled: (name, at) => lastPolled.set(name, at),
      ...(lease ? { writesAllowed: () => lease.held() } : {}),
      onAttempt: (endpoint, outcome) => {
        metrics.requests.inc({ endpoint, outcome });
        if (outcome === 'rate-limit') metrics.rateLimited.inc();
        const e = isEndpointId(endpoint) ? ENDPOINTS[endpoint] : undefined;
        if (e) for (const c of chargesOf(e)) if (c.kind !== 'orders') metrics.weight.inc({ endpoint, pool: c.pool }, c.weight);
      },
    });
    closers.push(() => venue.close());
    // The journal before anything is sent: one that belongs to another venue or account stops the start. Closed last.
    const journal = openJournal(loaded, venueOf(loaded), (file) =>
      log.info({ previous: file }, 'a fresh venue at every start: a fresh journal; the previous one is kept'),
    );
    closers.unshift(() => journal.close());
    if (lease) {
      const lost = leaseLost!.then((r) => new StartAbandonedError(`the account lease was lost (${r})`, false));
      await fenceJournal(journal, lease.fencingToken!, {
        clock,
        logger,
        until: Promise.race([lost, ...(opts.stop ? [opts.stop.then((r) => new StartAbandonedError(r, true))] : [])]),
      });
    }
    // Order activity (repeated denials folded into counts): subscribed until the very end, so the cancels on shutdown
    // are told too; its counts are summed up after that (closers run in reverse).
    const activity = new ActivityLog(logger, clock);
    closers.push(() => activity.close());
    const subs = new Subscription();
    closers.push(() => subs.unsubscribe());
    // The gauges' subscriptions end with intake (they keep the polls going).
    const gauges = new Subscription();
    // The operator's control, made once the core is; equity reaches it from the start.
    let control: ControlService | undefined;

    const core = await buildCore({
      instruments: await venue.instruments(),
      bind: venue.bind,
      journal,
      clock,
      logger,
      limits: riskLimits(loaded),
      tracking: cfg.execution,
      margin: marginSettingsOf(loaded.config.exchange.margin),
      strategies: {
        instances: cfg.strategies,
        dirs: cfg.strategyDirs,
        maxErrors: cfg.daemon.maxStrategyErrors,
        hookTimeoutMs: cfg.daemon.hookTimeoutMs,
        store: { load: (id) => journal.strategyState(id), save: (id, json) => journal.saveStrategyState(id, json, clock.now()) },
        ...(cfg.daemon.restartFaultedAfterMs ? { restartFaultedAfterMs: cfg.daemon.restartFaultedAfterMs } : {}),
      },
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
        control?.equityChanged(bySurface, atMs);
      },
    });
    const applyParams = (next: LoadedConfig): string[] => {
      const problems = core.updateParams(next.config.strategies);
      if (!problems.length) log.info({ strategies: next.config.strategies.map((s) => s.id) }, 'strategy params reloaded');
      return problems;
    };
    const reloadFile = async (): Promise<string[]> => {
      let problems: string[];
      try {
        // Symbols cannot change without a restart: the list known offline is enough. The params are checked by the
        // running strategies' own schemas as they are applied (all or nothing): the modules are not loaded again.
        const next = await loadCheckedConfig(loaded.file, { strategies: false });
        problems = next.ok ? applyParams(next.check.loaded) : next.issues.map(formatIssue);
      } catch (err) {
        problems = [(err as Error).message];
      }
      if (problems.length) log.warn({ problems }, 'config reload refused: the running config stays');
      return problems;
    };
    let watches: RiskWatches | undefined;
    const service = new ControlService({
      core,
      clock,
      logger,
      mode: cfg.mode,
      limiter: venue.client.limiter,
      lastPolled,
      reload: reloadFile,
      ...(lease ? { lease } : {}),
      flatten: (latch) => (watches ? watches.flattenNow(latch) : Promise.reject(new Error('the daemon is not trading yet'))),
    });
    control = service;
    closers.push(() => service.stop());
    // Notifications and chat commands (config `notify`): their listener only enqueues; a missing secret stops the start.
    const notifiers = startNotifiers(cfg.notify, service, { clock, logger });
    if (notifiers) closers.push(() => notifiers.stop(1000));
    subs.add(core.risk.tradingStates$.subscribe(activity.event));
    subs.add(core.executor.events$.subscribe(activity.event));

    intake = core;
    // Reconciliation before any new order, and again on schedule.
    await core.reconcile({ scanForeign: true, startup: true });
    if (lease && !lease.held()) throw new Error('the account lease was lost while starting: nothing traded');
    const schedules = new Schedules(clock, log);
    core.start(schedules, cfg.daemon.reconcileCron, cfg.strategies);
    // Instruments change rarely (new pairs, new steps): refreshed hourly.
    schedules.add('instruments', '0 7 * * * *', async () => void (await venue.instruments()));
    // Daily: a summary line, and journal housekeeping.
    schedules.add('daily', '0 5 0 * * *', () => {
      log.info({ orders: journal.countByState(), strategies: core.runner.status(), tradingState: core.risk.state() }, 'daily summary');
      journal.maintain();
    });

    // Balances and positions are also gauges (display only: floats are fine on a dashboard).
    const streams = core.venue.streams!;
    gauges.add(
      streams.positions$.subscribe((p) => {
        metrics.position.reset();
        for (const x of p.value) metrics.position.set({ symbol: x.symbol, side: x.side }, x.size.toNumber());
      }),
    );
    gauges.add(streams.balances$.subscribe((b) => b.value.forEach((x) => metrics.balance.set({ surface: x.surface, asset: x.asset }, x.total.toNumber()))));

    // The kill switch's action and the funding watch end with intake, as the gauges do.
    watches = startRiskWatches(core, cfg, metrics, lastPolled, clock, logger);
    gauges.add(watches.subscription);

    const ops = await startDaemonOps(core, venue, metrics, lastPolled, cfg, clock, logger, service);
    closers.push(() => ops.close());
    log.info(
      { opsUrl: ops.url, ...(ops.tokenFile ? { tokenFile: ops.tokenFile } : {}), strategies: core.runner.ids, symbols: core.symbols.all },
      'daemon running',
    );

    return {
      opsUrl: ops.url,
      signInUrl: ops.signInUrl,
      simUrl: venue.simUrl,
      control: service,
      reload: applyParams,
      reloadFile,
      ...(leaseLost ? { leaseLost } : {}),
      stop: async (reason: string, stopOpts: { cancelOpenOrders?: boolean } = {}) => {
        const startedAtMs = clock.now();
        log.info({ reason }, 'stopping: intake closed');
        gauges.unsubscribe();
        const settings = { ...cfg.daemon.shutdown, ...(stopOpts.cancelOpenOrders !== undefined ? { cancelOpenOrders: stopOpts.cancelOpenOrders } : {}) };
        const drained = await shutdownCore(core, settings, clock, log, startedAtMs);
        await closeAll();
        log.info({ ms: clock.now() - startedAtMs }, 'stopped');
        return drained ? 0 : 1;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
