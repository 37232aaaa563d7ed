// The daemon: wires market data, strategies, risk, executor, tracker, journal, cron and the ops endpoints
// around one exchange client (the venue, or the simulator started on loopback), and shuts down cleanly.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Subscription } from 'rxjs';
import type { LoadedConfig } from '../config/load.js';
import { Decimal } from '../domain/decimal.js';
import type { Instrument, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import { ENDPOINTS, type EndpointId } from '../exchange/endpoints.js';
import { MarketData } from '../data/market-data.js';
import type { Stamped } from '../data/poll.js';
import { Executor } from '../execution/executor.js';
import { OrderTracker, reconcileAndOpen, type ReconcileReport } from '../execution/order-tracker.js';
import { RiskGate } from '../execution/risk.js';
import type { ExchangeClient } from '../exchange/client.js';
import type { LiveClient } from '../exchange/live/live-client.js';
import { specFromInstrument } from '../exchange/sim/instruments.js';
import { ReplayMarket } from '../exchange/sim/market.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import type { SimServer } from '../exchange/sim/server.js';
import type { SqliteJournal } from '../journal/sqlite-journal.js';
import { loadStrategy } from '../strategy/loader.js';
import { StrategyRunner } from '../strategy/runner.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { ActivityLog } from './activity-log.js';
import { Cron } from './cron.js';
import { Metrics, OpsServer } from './http.js';
import { LatestTickers, startTradingLoop } from './trading-loop.js';
import { SIM_DEMO_CREDENTIALS, createLiveClient, createSimServer, openJournal, riskLimits, venueOf } from './kernel.js';

export interface Daemon {
  opsUrl: string;
  simUrl: string | undefined;
  /** Stops intake, drains in-flight writes, optionally cancels, flushes; resolves to the exit code. */
  stop(reason: string): Promise<number>;
  /** Applies what can change without a restart (strategy params); returns the problems (nothing applied then). */
  reload(next: LoadedConfig): string[];
}

export async function startDaemon(loaded: LoadedConfig, logger: Logger, clock: Clock): Promise<Daemon> {
  const cfg = loaded.config;
  const log = logger.child({ component: 'daemon' });
  const metrics = new Metrics();
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch((e: unknown) => log.warn({ err: String(e) }, 'close failed'));
  };

  try {
    if (cfg.mode === 'live' && !cfg.sim.embedded && !loaded.credentials) {
      throw new Error('live mode needs credentials: set SEXTANT_API_KEY, SEXTANT_API_SECRET and SEXTANT_API_PASSPHRASE (or their *_FILE variants), or use mode dry-run');
    }
    // The journal first: one that belongs to another venue or account stops the start before anything is sent.
    const journal: SqliteJournal = openJournal(loaded, venueOf(loaded), (file) => log.info({ previous: file }, 'a fresh venue at every start: a fresh journal; the previous one is kept'));
    closers.push(() => journal.close());
    // The venue, or the simulator on loopback.
    let sim: SimServer | undefined;
    let effective = loaded;
    if (cfg.sim.embedded) {
      sim = createSimServer(loaded, logger.child({ component: 'sim' }), clock);
      const url = await sim.listen(cfg.sim.port, '127.0.0.1');
      closers.push(() => sim!.close());
      effective = {
        ...loaded,
        credentials: loaded.credentials ?? SIM_DEMO_CREDENTIALS,
        config: { ...cfg, exchange: { ...cfg.exchange, spotBaseUrl: url, futuresBaseUrl: url } },
      };
      log.info({ url }, 'trading against the embedded simulator');
    }
    const client: LiveClient = createLiveClient(effective, logger, clock, (endpoint, outcome) => {
      metrics.requests.inc({ endpoint, outcome });
      if (outcome === 'rate-limit') metrics.rateLimited.inc();
      const e = ENDPOINTS[endpoint as EndpointId];
      if (e) {
        metrics.weight.inc({ endpoint, pool: `${e.surface}:ip` }, e.weight.ip);
        if (e.auth && e.weight.uid) metrics.weight.inc({ endpoint, pool: `${e.surface}:uid` }, e.weight.uid);
      }
    });
    closers.push(() => client.close());
    const limits = riskLimits(loaded);
    const risk = new RiskGate(limits, journal, clock);
    // Order activity, one line per event: subscribed until the very end, so the cancels on shutdown are told too.
    const activity = new ActivityLog(logger);
    const activitySub = new Subscription();
    closers.push(() => activitySub.unsubscribe());
    activitySub.add(risk.tradingStates$.subscribe(activity.event));

    const instruments = new Map<string, Instrument>();
    for (const s of ['spot', 'futures'] as const) for (const i of await client.instruments(s)) instruments.set(i.symbol, i);

    const loadedStrategies = [];
    for (const s of cfg.strategies) loadedStrategies.push({ cfg: s, def: await loadStrategy(s.name, cfg.strategyDirs) });
    const runner = new StrategyRunner(loadedStrategies, instruments, logger, cfg.daemon.maxStrategyErrors, {
      load: (id) => journal.strategyState(id),
      save: (id, json) => journal.saveStrategyState(id, json, clock.now()),
    }, cfg.daemon.restartFaultedAfterMs ? { afterMs: cfg.daemon.restartFaultedAfterMs, clock } : undefined, { hookTimeoutMs: cfg.daemon.hookTimeoutMs, clock });
    const symbols = runner.symbols();
    const spotSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'spot');
    const futuresSymbols = symbols.filter((s) => instruments.get(s)?.surface === 'futures');

    // Dry-run: market data from the venue, orders matched by the simulator's engine against that data.
    let trading: ExchangeClient = client;
    let feed: ReplayMarket | undefined;
    let paper: SimulatedExchange | undefined;
    if (cfg.mode === 'dry-run') {
      const specs = symbols.map((s) => specFromInstrument(instruments.get(s)!, Decimal.fromInt(1)));
      feed = new ReplayMarket(specs);
      paper = new SimulatedExchange(feed, { spot: cfg.sim.accounts.spot, futuresCollateral: cfg.sim.accounts.futuresCollateral, leverage: cfg.sim.accounts.leverage }, cfg.sim.retainOrders);
      trading = paper;
      log.info({ symbols }, 'dry-run: live market data, simulated fills');
    }

    const lastPolled = new Map<string, number>();
    const data = new MarketData(client, {
      spotSymbols, futuresSymbols, polls: cfg.daemon.polls, clock, logger, trading,
      onPolled: (name, at) => lastPolled.set(name, at),
    });
    // What the venue listed at the last poll: the open-order caps count it as well as the journal.
    let listed: Order[] = [];
    const subs = new Subscription();
    closers.push(() => subs.unsubscribe());
    subs.add(data.openOrders$.subscribe((x) => (listed = x.value)));

    const latest = new LatestTickers(limits.outlierPct);
    const executor = new Executor({
      client: trading, journal, risk, clock, logger, instruments,
      reference: latest.reference, listed: () => listed,
    });
    const ex = cfg.execution;
    const tracker = new OrderTracker({
      client: trading, journal, clock, logger, graceMs: ex.graceMs, lostAfterChecks: ex.lostAfterChecks, notPlacedAfterChecks: ex.notPlacedAfterChecks,
      vanishAfterMs: ex.vanishAfterMs, vanishAfterChecks: ex.vanishAfterChecks, symbols: { spot: spotSymbols, futures: futuresSymbols }, events$: executor.events$,
    });
    activitySub.add(executor.events$.subscribe(activity.event));

    // Reconciliation before any new order, and again on schedule. Trading stays fenced (cancels allowed) until a
    // signed request has succeeded (keys that work), and whenever the authentication halt has tripped.
    const surfaces = [...new Set(symbols.map((s) => instruments.get(s)!.surface))] as Surface[];
    let signedOk = trading !== client || surfaces.length === 0;
    let lastReport: ReconcileReport | undefined;
    const reconcile = async (opts: { scanForeign?: boolean; startup?: boolean }) => {
      const halt = client.authHalt();
      if (halt) {
        const reason = `authentication halted: ${halt.reason}`;
        if (executor.fenced !== reason) log.error({ reason }, 'trading halted: the venue refused our keys (restart once they are fixed)');
        executor.fence(reason);
        return;
      }
      if (!signedOk) {
        try {
          for (const s of surfaces) await client.balances(s);
          signedOk = true;
        } catch (err) {
          const reason = `no signed request has succeeded yet: ${(err as Error).message}`;
          if (executor.fenced !== reason) log.warn({ reason }, 'trading fenced (cancels allowed)');
          executor.fence(reason);
          return;
        }
      }
      lastReport = (await reconcileAndOpen(tracker, executor, log, opts)) ?? lastReport;
    };
    await reconcile({ scanForeign: true, startup: true });

    runner.start();
    const kernel = startTradingLoop({
      streams: data, latest, runner, executor, journal, risk, clock, logger, instruments,
      onEvent: (e) => {
        metrics.events.inc({ type: e.type });
        if (e.type === 'denied') metrics.denials.inc({ reason: e.reason });
      },
      onIntent: (intent) => {
        metrics.intents.inc({ strategy: intent.strategyId, kind: intent.kind });
        activity.intent(intent);
      },
      yieldAfterIntent: () => new Promise<void>((resolve) => setImmediate(resolve)),
      onEquity: (bySurface) => {
        for (const [surface, value] of Object.entries(bySurface)) metrics.equity.set({ surface }, value.toNumber());
      },
      ...(feed && paper
        ? {
            beforeTickers: (tickers: Stamped<Map<string, Ticker>>) => {
              // The simulator's market moves with what the venue shows.
              feed!.append([...tickers.value.values()].filter((t) => t.last).map((t) => ({
                ts: t.timestampMs, symbol: t.symbol, price: t.last!.toString(),
                size: instruments.get(t.symbol)!.minSize.mul(Decimal.fromInt(100)).toString(),
                ...(t.bestBid ? { bid: t.bestBid.toString() } : {}), ...(t.bestAsk ? { ask: t.bestAsk.toString() } : {}),
              })));
              paper!.advanceTo(clock.now());
            },
          }
        : {}),
    });
    closers.push(() => kernel.stop());

    // Balances and positions are also gauges (display only: floats are fine on a dashboard).
    subs.add(
      data.positions$.subscribe((p) => {
        metrics.position.reset();
        for (const x of p.value) metrics.position.set({ symbol: x.symbol, side: x.side }, x.size.toNumber());
      }),
    );
    subs.add(data.balances$.subscribe((b) => b.value.forEach((x) => metrics.balance.set({ surface: x.surface, asset: x.asset }, x.total.toNumber()))));

    const cron = new Cron(log);
    closers.push(() => cron.stop());
    cron.add('reconcile', cfg.daemon.reconcileCron, () => reconcile({}));
    for (const s of cfg.strategies) for (const [hook, expr] of Object.entries(s.schedule)) cron.add(`${s.id}.${hook}`, expr, () => runner.onSchedule(s.id, hook, clock.now()));
    // Instruments change rarely (new pairs, new steps): refreshed hourly.
    cron.add('instruments', '0 7 * * * *', async () => {
      for (const s of ['spot', 'futures'] as const) for (const i of await client.instruments(s)) instruments.set(i.symbol, i);
    });
    // Daily: a summary line, and journal housekeeping.
    cron.add('daily', '0 5 0 * * *', () => {
      log.info({ orders: journal.countByState(), strategies: runner.status(), tradingState: risk.state() }, 'daily summary');
      journal.maintain();
    });

    const freshLimitMs = cfg.daemon.polls.tickersMs * 3 + 5000;
    const startedAt = clock.now();
    // Liveness also means a responsive event loop: a p99 delay over 2 s is unhealthy.
    const loop = monitorEventLoopDelay({ resolution: 20 });
    loop.enable();
    closers.push(() => void loop.disable());
    /** The faulted strategy instances with their reasons; `all` when every instance is (nothing can trade then). */
    const faults = () => {
      const status = runner.status();
      const faulted = status.filter((s) => s.faulted).map((s) => ({ id: s.id, reason: s.reason ?? 'faulted' }));
      return { status, faulted, all: status.length > 0 && faulted.length === status.length };
    };
    const ops = new OpsServer(metrics, {
      health: () => {
        // Before the first poll, the age counts from the start.
        const age = clock.now() - (lastPolled.get('tickers') ?? startedAt);
        const loopP99Ms = Math.round(loop.percentile(99) / 1e6);
        loop.reset();
        // Liveness is the process's: a faulted strategy is shown here, and /ready says when none is left running.
        const { status, faulted } = faults();
        return {
          ok: (symbols.length === 0 || age <= freshLimitMs) && loopP99Ms < 2000,
          detail: { tickersAgeMs: age, eventLoopP99Ms: loopP99Ms, strategies: status, ...(faulted.length ? { faulted } : {}) },
        };
      },
      ready: () => {
        const state = risk.state();
        const pending = executor.fenced ? (lastReport?.pending ?? []) : [];
        const { faulted, all } = faults();
        return {
          ok: !executor.fenced && state !== 'halted' && !all,
          detail: {
            fenced: executor.fenced, tradingState: state, ...(state === 'halted' ? { halted: risk.latchReason() ?? 'halted' } : {}), ...(pending.length ? { pending } : {}),
            ...(all ? { strategiesFaulted: `every strategy is faulted: ${faulted.map((f) => `${f.id} (${f.reason})`).join('; ')}` } : {}),
          },
        };
      },
      beforeScrape: async () => {
        for (const st of await client.limiter.stats()) {
          metrics.limiterTokens.set({ pool: st.pool }, st.reservoir ?? 0);
          metrics.limiterQueued.set({ pool: st.pool }, st.queued);
        }
        const now = clock.now();
        for (const [name, at] of lastPolled) metrics.pollAge.set({ poll: name }, (now - at) / 1000);
        metrics.openOrders.set(journal.activeOrders().filter((r) => r.state === 'open').length);
        metrics.tradingState.set(executor.fenced || risk.state() === 'halted' ? 1 : 0);
        for (const s of runner.status()) metrics.strategyErrors.set({ strategy: s.id }, s.errors);
      },
    }, process.env[cfg.daemon.http.tokenEnv]);
    const opsUrl = await ops.listen(cfg.daemon.http.port, cfg.daemon.http.host);
    closers.push(() => ops.close());
    log.info({ opsUrl, strategies: runner.ids, symbols }, 'daemon running');

    return {
      opsUrl,
      simUrl: sim?.url,
      reload: (next: LoadedConfig) => {
        const problems: string[] = [];
        const byId = new Map(next.config.strategies.map((s) => [s.id, s]));
        for (const s of cfg.strategies) {
          const n = byId.get(s.id);
          if (!n || n.name !== s.name || JSON.stringify(n.symbols) !== JSON.stringify(s.symbols)) problems.push(`strategies[${s.id}]: only params can change without a restart`);
        }
        for (const id of byId.keys()) if (!cfg.strategies.some((s) => s.id === id)) problems.push(`strategies[${id}]: adding a strategy needs a restart`);
        if (problems.length) return problems;
        // Validate every instance first, then apply: all or nothing.
        const trial = next.config.strategies.flatMap((s) => runner.checkParams(s.id, s.params));
        if (trial.length) return trial;
        for (const s of next.config.strategies) runner.updateParams(s.id, s.params);
        log.info({ strategies: next.config.strategies.map((s) => s.id) }, 'strategy params reloaded');
        return [];
      },
      stop: async (reason: string) => {
        const t0 = clock.now();
        log.info({ reason }, 'stopping: intake closed');
        kernel.stop();
        subs.unsubscribe();
        await cron.stop();
        const budgetMs = Math.max(0, t0 + cfg.daemon.shutdown.timeoutMs - 1500 - clock.now());
        let timer: NodeJS.Timeout | undefined;
        const drained = await Promise.race([
          Promise.all([...kernel.inFlight]).then(() => true),
          new Promise<boolean>((r) => (timer = setTimeout(() => r(false), budgetMs))),
        ]);
        clearTimeout(timer);
        const sd = cfg.daemon.shutdown;
        if (sd.cancelOpenOrders) {
          for (const s of symbols) {
            const surface = instruments.get(s)!.surface;
            const r = await executor.cancelAllOwn(surface, s, sd.cancelTriggers).catch((err: unknown) => {
              log.warn({ err: String(err), symbol: s }, 'cancel on shutdown failed');
              return undefined;
            });
            if (r) log.info({ symbol: s, canceled: r.events.filter((e) => e.type === 'canceled').length, triggersKept: r.keptTriggers.length }, 'open orders canceled on shutdown');
          }
          // Cancels answered "not found" may have filled: one last look settles them.
          await tracker.reconcile().catch((err: unknown) => log.warn({ err: String(err) }, 'final reconciliation failed'));
        }
        // Everything not final: resting, unanswered (it may rest), being canceled, lost (still checked next start).
        const left = journal.activeOrders();
        if (left.length) {
          const show = (r: (typeof left)[number]) => ({ clientOid: r.clientOid, symbol: r.symbol, side: r.side, price: r.price, state: r.state, ...(r.isTrigger ? { triggerPrice: r.triggerPrice } : {}) });
          const triggers = left.filter((r) => r.isTrigger).map(show);
          log.info({ open: left.filter((r) => !r.isTrigger).map(show), triggers, ...(triggers.length && sd.cancelOpenOrders && !sd.cancelTriggers ? { kept: 'trigger orders stay by choice (daemon.shutdown.cancelTriggers: false)' } : {}) }, 'orders left at the venue');
        }
        await closeAll();
        log.info({ ms: clock.now() - t0 }, 'stopped');
        return drained ? 0 : 1;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

