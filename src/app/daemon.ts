// The daemon: the venue the kernel chooses, the trading core over it, the journal, schedules, the activity log and
// the ops endpoints; a clean stop, and strategy params reloaded without a restart.
import { Subscription } from 'rxjs';
import type { LoadedConfig } from '../config/load.js';
import { ENDPOINTS, chargesOf, isEndpointId } from '../exchange/endpoints.js';
import { nextTurn, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { ActivityLog } from './activity-log.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { buildCore } from './core.js';
import { Schedules } from './cron.js';
import { startDaemonOps } from './daemon-ops.js';
import { Metrics } from './http.js';
import { openJournal, openVenue, riskLimits, venueOf } from './kernel.js';
import { shutdownCore } from './shutdown.js';

export interface Daemon {
  opsUrl: string;
  simUrl: string | undefined;
  /** Stops intake, drains in-flight writes, optionally cancels, flushes; resolves to the exit code. */
  stop(reason: string): Promise<number>;
  /** Applies what can change without a restart (strategy params); returns the problems (nothing applied then). */
  reload(next: LoadedConfig): string[];
}

export interface DaemonOptions {
  /** Loaded strategy definitions by name, instead of loading them from `strategyDirs` (embedding, tests). */
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
}

export async function startDaemon(loaded: LoadedConfig, logger: Logger, clock: Clock, opts: DaemonOptions = {}): Promise<Daemon> {
  const cfg = loaded.config;
  const log = logger.child({ component: 'daemon' });
  const metrics = new Metrics();
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch((e: unknown) => log.warn({ err: String(e) }, 'close failed'));
  };

  try {
    const lastPolled = new Map<string, number>();
    const venue = await openVenue(loaded, {
      logger, clock, onPolled: (name, at) => lastPolled.set(name, at),
      onAttempt: (endpoint, outcome) => {
        metrics.requests.inc({ endpoint, outcome });
        if (outcome === 'rate-limit') metrics.rateLimited.inc();
        const e = isEndpointId(endpoint) ? ENDPOINTS[endpoint] : undefined;
        if (e) for (const c of chargesOf(e)) if (c.kind !== 'orders') metrics.weight.inc({ endpoint, pool: c.pool }, c.weight);
      },
    });
    closers.push(() => venue.close());
    // The journal before anything is sent: one that belongs to another venue or account stops the start. Closed last.
    const journal = openJournal(loaded, venueOf(loaded), (file) => log.info({ previous: file }, 'a fresh venue at every start: a fresh journal; the previous one is kept'));
    closers.unshift(() => journal.close());
    // Order activity, one line per event: subscribed until the very end, so the cancels on shutdown are told too.
    const activity = new ActivityLog(logger);
    const subs = new Subscription();
    closers.push(() => subs.unsubscribe());
    // The gauges' subscriptions end with intake (they keep the polls going).
    const gauges = new Subscription();

    const core = await buildCore({
      instruments: await venue.instruments(), bind: venue.bind, journal, clock, logger, limits: riskLimits(loaded), tracking: cfg.execution,
      strategies: {
        instances: cfg.strategies, dirs: cfg.strategyDirs, maxErrors: cfg.daemon.maxStrategyErrors, hookTimeoutMs: cfg.daemon.hookTimeoutMs,
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
      onEquity: (bySurface) => {
        for (const [surface, value] of Object.entries(bySurface)) metrics.equity.set({ surface }, value.toNumber());
      },
    });
    subs.add(core.risk.tradingStates$.subscribe(activity.event));
    subs.add(core.executor.events$.subscribe(activity.event));

    // Reconciliation before any new order, and again on schedule.
    await core.reconcile({ scanForeign: true, startup: true });
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

    const ops = await startDaemonOps(core, venue, metrics, lastPolled, cfg, clock);
    closers.push(() => ops.close());
    log.info({ opsUrl: ops.url, strategies: core.runner.ids, symbols: core.symbols.all }, 'daemon running');

    return {
      opsUrl: ops.url,
      simUrl: venue.simUrl,
      reload: (next: LoadedConfig) => {
        const problems = core.updateParams(next.config.strategies);
        if (!problems.length) log.info({ strategies: next.config.strategies.map((s) => s.id) }, 'strategy params reloaded');
        return problems;
      },
      stop: async (reason: string) => {
        const startedAtMs = clock.now();
        log.info({ reason }, 'stopping: intake closed');
        gauges.unsubscribe();
        const drained = await shutdownCore(core, cfg.daemon.shutdown, clock, log, startedAtMs);
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
