// The daemon's ops server over the core: /health (fresh polls, a responsive event loop), /ready (reconciled,
// not halted, some strategy running), the gauges refreshed before each /metrics scrape (the distance to
// liquidation and the margin rates among them), and the control API over the daemon's Control (with the dashboard
// when daemon.http.dashboard is set). Its token is the configured one or one generated now, written to the token
// file for the commands that talk to the daemon (removed at stop); a generated token's sign-in link is handed back
// for the command line to print once (never logged).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Config } from '../config/schema.js';
import type { Control } from '../ops/control.js';
import { dashboardRoutes } from '../ops/dashboard/index.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Core } from './core.js';
import { Metrics, OpsServer, daemonToken, httpTokenFile, reachableUrl, signInUrl, writeTokenFile, type OpsServerExtras } from './http.js';
import type { Venue } from './kernel.js';

export interface DaemonOps {
  url: string;
  /** The dashboard's sign-in link with the token, to print once at start; undefined for a configured token (the operator holds it). */
  signInUrl: string | undefined;
  /** Where the generated token was written; undefined for a configured token. */
  tokenFile: string | undefined;
  close(): Promise<void>;
}

/** What the ops server reads and serves. */
export interface DaemonOpsOptions {
  core: Core;
  venue: Venue;
  metrics: Metrics;
  /** When each poll last succeeded, by name (the gauges and /health). */
  lastPolled: ReadonlyMap<string, number>;
  cfg: Config;
  clock: Clock;
  logger: Logger;
  /** The operator's control the API serves; absent: no control API. */
  control?: Control;
}

export async function startDaemonOps(opts: DaemonOpsOptions): Promise<DaemonOps> {
  const { core, venue, metrics, lastPolled, cfg, clock, logger, control } = opts;
  const http = cfg.daemon.http;
  // Read before anything listens: a token file that cannot be read stops the start.
  const credential = daemonToken(process.env, http.tokenEnv, http.host);
  const log = logger.child({ component: 'http' });
  // The dashboard's page and assets, when enabled (daemon.http.dashboard).
  const plugins: NonNullable<OpsServerExtras['plugins']>[number][] = http.dashboard ? [dashboardRoutes] : [];
  const freshLimitMs = cfg.daemon.polls.tickersMs * 3 + 5000;
  const startedAtMs = clock.now();
  // Liveness also means a responsive event loop: a p99 delay over 2 s is unhealthy.
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  /** The faulted strategy instances with their reasons; `all` when every instance is (nothing can trade then). */
  const faults = () => {
    const status = core.runner.status();
    const faulted = status.filter((s) => s.faulted).map((s) => ({ id: s.id, reason: s.reason ?? 'faulted' }));
    return { status, faulted, all: status.length > 0 && faulted.length === status.length };
  };
  const ops = new OpsServer(
    metrics,
    {
      health: () => {
        // Before the first poll, the age counts from the start.
        const age = clock.now() - (lastPolled.get('tickers') ?? startedAtMs);
        const loopP99Ms = Math.round(loop.percentile(99) / 1e6);
        loop.reset();
        // Liveness is the process's: a faulted strategy is shown here, and /ready says when none is left running.
        const { status, faulted } = faults();
        return {
          ok: (core.symbols.all.length === 0 || age <= freshLimitMs) && loopP99Ms < 2000,
          detail: { tickersAgeMs: age, eventLoopP99Ms: loopP99Ms, strategies: status, ...(faulted.length ? { faulted } : {}) },
        };
      },
      ready: () => {
        const { tradingState: state, fenced, pending } = core.state();
        const { faulted, all } = faults();
        return {
          ok: !fenced && state !== 'halted' && !all,
          detail: {
            fenced,
            tradingState: state,
            ...(state === 'halted' ? { halted: core.risk.latchReason() ?? 'halted' } : {}),
            ...(pending.length ? { pending } : {}),
            ...(all ? { strategiesFaulted: `every strategy is faulted: ${faulted.map((f) => `${f.id} (${f.reason})`).join('; ')}` } : {}),
          },
        };
      },
      beforeScrape: async () => {
        for (const st of await venue.client.limiter.stats()) {
          metrics.limiterTokens.set({ pool: st.pool }, st.reservoir ?? 0);
          metrics.limiterQueued.set({ pool: st.pool }, st.queued);
        }
        const now = clock.now();
        for (const [name, at] of lastPolled) metrics.pollAge.set({ poll: name }, (now - at) / 1000);
        metrics.openOrders.set(core.journal.activeOrders().filter((r) => r.state === 'open').length);
        metrics.tradingState.set(core.executor.fenced || core.risk.state() === 'halted' ? 1 : 0);
        for (const s of core.runner.status()) metrics.strategyErrors.set({ strategy: s.id }, s.errors);
        // The futures positions' distance to liquidation, as the risk gate last took it in (display only: floats).
        const liquidation = core.risk.account().liquidation;
        metrics.liquidationDistance.reset();
        for (const x of liquidation?.distances ?? [])
          if (x.distancePct) metrics.liquidationDistance.set({ symbol: x.symbol, side: x.side }, x.distancePct.toNumber());
        for (const [gauge, rate] of [
          [metrics.marginRate, liquidation?.marginRate],
          [metrics.maintenanceRate, liquidation?.maintenanceRate],
        ] as const) {
          if (rate) gauge.set(rate.toNumber());
          else gauge.reset();
        }
      },
    },
    credential.token,
    {
      ...(control ? { control } : {}),
      commands: http.commands,
      clock,
      plugins,
      allowedHosts: http.allowedHosts,
      allowedOrigins: http.allowedOrigins,
      home: http.dashboard ? '/' : '/api/v1/status',
      onRefused: (r) =>
        log.warn(
          { status: r.status, method: r.method, path: r.path, host: r.host, origin: r.origin, ...(r.suppressed ? { alsoRefused: r.suppressed } : {}) },
          `request refused: ${r.error}`,
        ),
    },
  );
  const url = await ops.listen(http.port, http.host);
  const port = Number(new URL(url).port);
  let removeTokenFile = () => undefined as void;
  let tokenFile: string | undefined;
  if (credential.generated) {
    tokenFile = httpTokenFile(cfg, port);
    try {
      removeTokenFile = writeTokenFile(tokenFile, credential.token);
    } catch (err) {
      await ops.close();
      throw new Error(
        `cannot write the HTTP token file ${tokenFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} (daemon.http.tokenFile names another)`,
      );
    }
  }
  return {
    url,
    signInUrl: credential.generated ? signInUrl(reachableUrl(http.host, port), credential.token) : undefined,
    tokenFile,
    close: async () => {
      loop.disable();
      await ops.close();
      removeTokenFile();
    },
  };
}
