// The kernel chooses: which venue a mode trades (the exchange, the embedded simulator, dry-run's paper venue
// following live data, a backtest's virtual venue), where its market data comes from, on which clock, which journal
// it belongs to (kernel-stores.ts: the journal and the lease store), and the venue a command (`api`, `record`) talks
// to. No mode branch lives anywhere else.
import type { LoadedConfig } from '../config/load.js';
import type { Config, SimConfig } from '../config/schema.js';
import type { Credentials } from '../domain/credentials.js';
import { Decimal } from '../domain/decimal.js';
import type { RiskLimits } from '../execution/risk.js';
import type { SimAccounts } from '../exchange/sim/engine.js';
import type { ReplayMarket } from '../exchange/sim/market.js';
import { createMarket, replayMarket, simSpecs } from './sim-market.js';
import { simFuturesOptionsOf } from '../exchange/sim/futures-views.js';
import { SimServer } from '../exchange/sim/server.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import { LiveClient } from '../exchange/live/live-client.js';
import { VirtualClock, type Clock } from '../util/clock.js';
import type { Instrument } from '../domain/market.js';
import { MarketData } from '../data/market-data.js';
import { BarFeed, liveBars, warmFromVenue, type BarSource } from '../data/bar-feed.js';
import { pollChoices, shadowed } from './poll-plan.js';
import { MeteredClient } from '../exchange/sim/metered-client.js';
import { venueBudgetOf } from '../domain/venue-budget.js';
import { PaperVenue } from '../exchange/sim/paper-venue.js';
import { virtualVenue, type BacktestVenue } from './backtest-driver.js';
import type { BoundVenue, CoreOptions, TradedSymbols } from './core.js';
import type { StateStore } from '../strategy/runner.js';
import { redactUrlCredentials, type Logger } from '../util/logger.js';

export function createLiveClient(
  loaded: LoadedConfig,
  logger: Logger,
  clock: Clock,
  onAttempt?: (endpoint: string, outcome: string) => void,
  writesAllowed?: () => boolean,
): LiveClient {
  const ex = loaded.config.exchange;
  const creds = loaded.credentials;
  return new LiveClient({
    spotBaseUrl: ex.spotBaseUrl,
    futuresBaseUrl: ex.futuresBaseUrl,
    ...(creds ? { credentials: creds } : {}),
    locale: ex.locale,
    timeoutMs: ex.timeoutMs,
    retry: ex.retry,
    maxPages: ex.maxPages,
    spotOpenOrders: ex.spotOpenOrders,
    fundingFeeSign: ex.fundingFeeSign,
    authFailuresBeforeHalt: ex.authFailuresBeforeHalt,
    rateLimit: {
      spot: ex.rateLimit.spot,
      futures: ex.rateLimit.futures,
      orderRequests: ex.rateLimit.orderRequests,
      usableFraction: ex.rateLimit.usableFraction,
      arrivalSpreadMs: ex.rateLimit.arrivalSpreadMs,
      cooloffMs: ex.rateLimit.cooloffMs,
      ...(ex.rateLimit.egress ? { egress: ex.rateLimit.egress } : {}),
      ...(ex.rateLimit.redis ? { redis: ex.rateLimit.redis } : {}),
    },
    clock,
    logger,
    ...(onAttempt ? { onAttempt } : {}),
    ...(writesAllowed ? { writesAllowed } : {}),
  });
}

/** Credentials the simulator accepts when none are configured (documented in the README; never valid anywhere else). */
export const SIM_DEMO_CREDENTIALS: Credentials = { apiKey: 'sextant-demo-key', apiSecret: 'sextant-demo-secret', passphrase: 'sextant-demo-pass' };

function simAccounts(sim: SimConfig): SimAccounts {
  return { spot: sim.accounts.spot, futuresCollateral: sim.accounts.futuresCollateral, leverage: sim.accounts.leverage };
}

/** The bar feed of the series the strategies asked for (none: undefined), as `wrap` makes it a venue's bar source. */
function barsOf(
  symbols: TradedSymbols,
  units: ReadonlyMap<string, Pick<Instrument, 'tickSize' | 'stepSize'>>,
  cfg: Config,
  clock: Clock,
  wrap: (feed: BarFeed) => BarSource,
): BarSource | undefined {
  if (symbols.bars.length === 0) return undefined;
  return wrap(new BarFeed({ needs: symbols.bars, units, clock, closeDelayMs: cfg.daemon.bars.closeDelayMs }));
}

/** The simulator's HTTP face on the wall clock. */
export function createSimServer(loaded: LoadedConfig, logger: Logger, clock: Clock, onRequest?: (method: string, path: string) => void): SimServer {
  const sim = loaded.config.sim;
  const server = new SimServer({
    market: createMarket(sim, clock.now()),
    accounts: simAccounts(sim),
    credentials: loaded.credentials ?? SIM_DEMO_CREDENTIALS,
    budget: sim.budget,
    clock,
    logger,
    retain: sim.retainOrders,
    futures: simFuturesOptionsOf(loaded.config.exchange.margin, sim.futures),
    fundingFeeSign: loaded.config.exchange.fundingFeeSign,
    ...(onRequest ? { onRequest } : {}),
  });
  server.engine.fillModel = sim.fills;
  return server;
}

/** A simulator started on loopback for this process, and the configuration that trades it. */
export interface EmbeddedSimulator {
  /** The configuration with the simulator's URL as both base URLs, and the demo keys unless keys are set. */
  loaded: LoadedConfig;
  url: string;
  close(): Promise<void>;
}

/** Starts the simulator's HTTP face on 127.0.0.1 (`port` 0: any free port) for a configuration to trade. */
export async function startEmbeddedSimulator(loaded: LoadedConfig, logger: Logger, clock: Clock, port: number): Promise<EmbeddedSimulator> {
  const sim = createSimServer(loaded, logger.child({ component: 'sim' }), clock);
  const url = await sim.listen(port, '127.0.0.1');
  const cfg = loaded.config;
  return {
    loaded: {
      ...loaded,
      credentials: loaded.credentials ?? SIM_DEMO_CREDENTIALS,
      config: { ...cfg, exchange: { ...cfg.exchange, spotBaseUrl: url, futuresBaseUrl: url } },
    },
    url,
    close: () => sim.close(),
  };
}

/** The strategies of the configuration as the core runs them (daemon and shadow), their state kept by `store`. */
export function strategySettings(cfg: Config, store?: StateStore): NonNullable<CoreOptions['strategies']> {
  return {
    instances: cfg.strategies,
    dirs: cfg.strategyDirs,
    maxErrors: cfg.daemon.maxStrategyErrors,
    hookTimeoutMs: cfg.daemon.hookTimeoutMs,
    ...(store ? { store } : {}),
    ...(cfg.daemon.restartFaultedAfterMs ? { restartFaultedAfterMs: cfg.daemon.restartFaultedAfterMs } : {}),
  };
}

/** The risk limits of the configuration, as exact values. */
export function riskLimits(loaded: LoadedConfig): RiskLimits {
  const r = loaded.config.risk;
  return {
    maxNotionalPerOrder: Decimal.from(r.maxNotionalPerOrder),
    maxNotionalPerSymbol: Decimal.from(r.maxNotionalPerSymbol),
    maxOpenOrdersPerSymbol: r.maxOpenOrdersPerSymbol,
    maxOpenOrdersPerStrategy: r.maxOpenOrdersPerStrategy,
    priceBandPct: Decimal.from(r.priceBandPct),
    staleAfterMs: r.staleAfterMs,
    maxOrdersPerMinute: r.maxOrdersPerMinute,
    maxDrawdownPct: Decimal.from(r.maxDrawdownPct),
    maxOrdersPerIntent: r.maxOrdersPerIntent,
    outlierPct: Decimal.from(r.outlierPct),
    ...(r.reduceDrawdownPct !== undefined ? { reduceDrawdownPct: Decimal.from(r.reduceDrawdownPct) } : {}),
    ...(r.minLiquidationDistancePct !== undefined ? { minLiquidationDistancePct: Decimal.from(r.minLiquidationDistancePct) } : {}),
    ...(r.reduceLiquidationDistancePct !== undefined ? { reduceLiquidationDistancePct: Decimal.from(r.reduceLiquidationDistancePct) } : {}),
  };
}

/** What a daemon trades: its market-data client, and the venue bound to the symbols once they are known. */
export interface Venue {
  /** The client market data is read with (and, but for dry-run, orders sent to). */
  client: LiveClient;
  /** The embedded simulator's URL, when the venue is one. */
  simUrl?: string;
  instruments(): Promise<Map<string, Instrument>>;
  bind(symbols: TradedSymbols): BoundVenue;
  close(): Promise<void>;
}

export interface VenueOptions {
  logger: Logger;
  clock: Clock;
  /** Told of every request attempt (metrics). */
  onAttempt?: (endpoint: string, outcome: string) => void;
  /** Told of every successful poll (health, metrics). */
  onPolled?: (name: string, atMs: number) => void;
  /** Whether writes may go now (the account lease held; see RestClientOptions.writesAllowed). */
  writesAllowed?: () => boolean;
}

export interface BacktestVenueOptions {
  /** The data files (several: merged in time order) and the window replayed; `logger` is told when a file has no cache. */
  backtest: { dataFile: string | readonly string[]; fromMs?: number; toMs?: number; logger?: Logger };
}

/**
 * The venue of the configured mode: the exchange at the base URLs (`live`), the simulator on loopback
 * (`sim.embedded`), the exchange's market data with a paper venue filling orders (`dry-run`); with `backtest`
 * options, the virtual venue over recorded data.
 */
export async function openVenue(loaded: LoadedConfig, opts: BacktestVenueOptions): Promise<BacktestVenue>;
export async function openVenue(loaded: LoadedConfig, opts: VenueOptions): Promise<Venue>;
export async function openVenue(loaded: LoadedConfig, opts: VenueOptions | BacktestVenueOptions): Promise<Venue | BacktestVenue> {
  const cfg = loaded.config;
  if ('backtest' in opts) return backtestVenue(loaded, opts.backtest);
  const { logger, clock } = opts;
  if (missingCredentials(loaded)) {
    throw new Error(
      'live mode needs credentials: set SEXTANT_API_KEY, SEXTANT_API_SECRET and SEXTANT_API_PASSPHRASE (or their *_FILE variants), or use mode dry-run',
    );
  }
  const sim = cfg.sim.embedded ? await startEmbeddedSimulator(loaded, logger, clock, cfg.sim.port) : undefined;
  if (sim) logger.child({ component: 'daemon' }).info({ url: sim.url }, 'trading against the embedded simulator');
  const client = createLiveClient(sim?.loaded ?? loaded, logger, clock, opts.onAttempt, opts.writesAllowed);
  const instruments = new Map<string, Instrument>();
  const venue: Venue = {
    client,
    ...(sim ? { simUrl: sim.url } : {}),
    instruments: async () => {
      for (const s of ['spot', 'futures'] as const) for (const i of await client.instruments(s)) instruments.set(i.symbol, i);
      return instruments;
    },
    bind: (symbols) => {
      // Dry-run: market data from the venue, orders matched by the simulator's engine following that data.
      const paper =
        cfg.mode === 'dry-run'
          ? new PaperVenue(
              symbols.all.map((s) => instruments.get(s)!),
              simAccounts(cfg.sim),
              cfg.sim.retainOrders,
              client,
              simFuturesOptionsOf(cfg.exchange.margin, cfg.sim.futures),
            )
          : undefined;
      if (paper) {
        paper.simulator.engine.fillModel = cfg.sim.fills;
        logger.child({ component: 'daemon' }).info({ symbols: symbols.all, fills: cfg.sim.fills }, 'dry-run: live market data, simulated fills');
      }
      const streams = new MarketData(client, {
        spotSymbols: symbols.spot,
        futuresSymbols: symbols.futures,
        // A shadow replays every spot pair's public trades: the trades poll reads them all.
        barSpotSymbols: shadowed(cfg) ? symbols.spot : symbols.barSpot,
        polls: cfg.daemon.polls,
        clock,
        logger,
        choices: pollChoices(cfg, symbols.futures.length),
        ...(paper ? { trading: paper } : {}),
        ...(opts.onPolled ? { onPolled: opts.onPolled } : {}),
      });
      const bars = barsOf(symbols, instruments, cfg, clock, (feed) =>
        liveBars(
          feed,
          {
            tickers$: streams.tickers$,
            ...(symbols.barSpot.length ? { trades$: streams.trades$ } : {}),
            futuresSymbols: symbols.futures.filter((s) => symbols.bars.some((n) => n.symbol === s)),
          },
          cfg.daemon.bars.warmup ? () => warmFromVenue(feed, client, instruments, clock, logger) : undefined,
        ),
      );
      const withBars = { ...(bars ? { bars } : {}), ...(shadowed(cfg) && symbols.spot.length ? { trades$: streams.trades$ } : {}) };
      if (paper) return { trading: paper, streams, ...withBars, beforeTickers: (tickers) => paper.follow(tickers.value.values(), clock.now()) };
      return {
        trading: client,
        streams,
        ...withBars,
        keys: {
          authHalt: () => client.authHalt(),
          resetAuthHalt: () => client.resetAuthHalt(),
          probe: async (surfaces) => {
            for (const s of surfaces) await client.balances(s);
          },
        },
      };
    },
    close: async () => {
      await client.close();
      await sim?.close();
    },
  };
  return venue;
}

/** The backtest's virtual venue: the replayed data, the in-process simulator behind the venue's meter and the round trip. */
function backtestVenue(loaded: LoadedConfig, opts: BacktestVenueOptions['backtest']): BacktestVenue {
  const cfg = loaded.config;
  const log = opts.logger?.child({ component: 'backtest' });
  const market = replayMarket(simSpecs(cfg.sim), opts.dataFile, {
    cache: cfg.backtest.cache,
    ...(opts.fromMs !== undefined ? { fromMs: opts.fromMs } : {}),
    ...(opts.toMs !== undefined ? { toMs: opts.toMs } : {}),
    ...(log ? { onNote: (message: string) => log.warn(message) } : {}),
  });
  if (market.length === 0) throw new Error('no market data in the chosen range');
  const clock = new VirtualClock(market.nextTs);
  const simulator = new SimulatedExchange(market, simAccounts(cfg.sim), cfg.sim.retainOrders, clock, simFuturesOptionsOf(cfg.exchange.margin, cfg.sim.futures));
  simulator.engine.fillModel = cfg.sim.fills;
  // Every request is charged the venue's weights in virtual time (over the budget: the venue's 429).
  const metered = new MeteredClient(simulator, venueBudgetOf(cfg.exchange.rateLimit), clock, cfg.exchange.spotOpenOrders);
  return virtualVenue({
    market,
    simulator,
    metered,
    clock,
    latencyMs: cfg.backtest.latencyMs,
    polls: cfg.daemon.polls,
    choices: pollChoices(cfg, futuresTraded(cfg, market)),
    closeDelayMs: cfg.daemon.bars.closeDelayMs,
  });
}

/** How many futures contracts the strategies trade (the choice of the futures tickers read depends on it). */
function futuresTraded(cfg: Config, market: ReplayMarket): number {
  const futures = new Set(market.symbols.filter((m) => m.spec.surface === 'futures').map((m) => m.spec.symbol));
  return new Set(cfg.strategies.flatMap((s) => s.symbols).filter((s) => futures.has(s))).size;
}

/**
 * A command venue as a data file's header names it: its base URL (both surfaces', when they differ), or the embedded
 * simulator with its seed. A download resumes only into a file from the same venue.
 */
export function venueName(venue: CommandVenue): string {
  if (venue.embedded) return `embedded-simulator seed ${venue.loaded.config.sim.seed}`;
  const ex = venue.loaded.config.exchange;
  const spot = redactUrlCredentials(ex.spotBaseUrl);
  const futures = redactUrlCredentials(ex.futuresBaseUrl);
  return spot === futures ? spot : `${spot} ${futures}`;
}

/** Whether the configuration trades the simulator (the embedded one, or the in-process one of a backtest). */
export function tradesSimulator(config: Config): boolean {
  return config.sim.embedded || config.mode === 'backtest';
}

/** What stops `run` for want of keys: live mode at the exchange with no credentials. */
export function missingCredentials(loaded: LoadedConfig): boolean {
  const cfg = loaded.config;
  return cfg.mode === 'live' && !cfg.sim.embedded && !loaded.credentials;
}

/** The credentials line of `plan`: where the keys come from for the venue in use. */
export function describeCredentials(loaded: LoadedConfig): string {
  return loaded.credentials
    ? 'set (from the environment)'
    : loaded.config.sim.embedded
      ? "not set (the simulator's demo keys)"
      : 'not set (public endpoints only)';
}

export interface CommandVenue {
  /** The configuration to build clients from: the base URLs and keys of the venue in use. */
  loaded: LoadedConfig;
  /** Where requests go, in a sentence. */
  where: string;
  /** Whether it is a simulator started for this command (gone when the command ends). */
  embedded: boolean;
  close(): Promise<void>;
}

/** The lines of `plan` that say which venue `run` would trade. */
export function describeVenue(loaded: LoadedConfig): string[] {
  const cfg = loaded.config;
  const ex = cfg.exchange;
  const urls = [`  spot     ${redactUrlCredentials(ex.spotBaseUrl)}`, `  futures  ${redactUrlCredentials(ex.futuresBaseUrl)}`];
  if (cfg.sim.embedded) {
    const port = cfg.sim.port === 0 ? 'any free port' : `port ${cfg.sim.port}`;
    return [
      `  venue    the embedded simulator (sim.embedded): \`run\` starts it on 127.0.0.1, ${port}, seed ${cfg.sim.seed}; exchange base URLs are not used`,
      `           \`api\` and \`record\` start one of their own on a free port (a fresh market: not the one a running daemon trades)`,
    ];
  }
  if (cfg.mode === 'dry-run')
    return ["  venue    market data from the venue's public endpoints; orders filled by a paper venue (the simulator's engine): none is sent", ...urls];
  if (cfg.mode === 'backtest')
    return ['  venue    `sextant backtest` replays backtest.data against the in-process simulator; `run` would trade the venue:', ...urls];
  return ['  venue    the exchange at the base URLs:', ...urls];
}

/**
 * Opens the venue for a command that talks to it (`api`, `record`): for sim.embedded, a simulator on a free
 * loopback port (never the configured one: a running daemon's simulator may hold it) with the demo keys unless
 * keys are set, as `run` trades it; otherwise the configured base URLs as they are.
 */
export async function openCommandVenue(loaded: LoadedConfig, logger: Logger, clock: Clock): Promise<CommandVenue> {
  const cfg = loaded.config;
  if (!cfg.sim.embedded) {
    const ex = cfg.exchange;
    const where =
      ex.spotBaseUrl === ex.futuresBaseUrl
        ? redactUrlCredentials(ex.spotBaseUrl)
        : `${redactUrlCredentials(ex.spotBaseUrl)} (spot), ${redactUrlCredentials(ex.futuresBaseUrl)} (futures)`;
    return { loaded, where, embedded: false, close: async () => {} };
  }
  const sim = await startEmbeddedSimulator(loaded, logger, clock, 0);
  return {
    loaded: sim.loaded,
    where: `an embedded simulator started for this command at ${sim.url} (sim.embedded in ${loaded.file}: a fresh market, not a running daemon's; the exchange base URLs are not used)`,
    embedded: true,
    close: () => sim.close(),
  };
}
