// The live shadow (config `shadow`): the same strategies, in this process, trading the in-process simulator fed the
// market data the live daemon polls, never the venue. It runs in virtual time a little behind the wall clock: the
// spot pairs' public trades and the futures tickers the daemon read are the simulator's market (as a recording would
// replay them), the tickers the live strategies saw are shown to the shadow's at the instants they were read, and its
// open orders, balances and positions are read from its simulator at the instants the live polls read the venue's.
// A strategy that decides alike then sends the same order at the same instant on both sides: the divergence report
// pairs them and names why their fills differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { firstValueFrom, Subscription, type Observable } from 'rxjs';
import type { LoadedConfig } from '../config/load.js';
import type { Stamped } from '../data/poll.js';
import { TapeRecorder } from '../data/recorder.js';
import { Decimal } from '../domain/decimal.js';
import { marginSettingsOf } from '../domain/margin.js';
import type { Balance, Instrument, PublicTrade, Ticker } from '../domain/market.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { venueBudgetOf } from '../domain/venue-budget.js';
import type { SimAccounts } from '../exchange/sim/engine.js';
import { simFuturesOptionsOf } from '../exchange/sim/futures-views.js';
import { specFromInstrument } from '../exchange/sim/instruments.js';
import { ReplayMarket } from '../exchange/sim/market.js';
import { MeteredClient } from '../exchange/sim/metered-client.js';
import { SimulatedExchange } from '../exchange/sim/simulated-exchange.js';
import type { Journal } from '../journal/journal.js';
import { SqliteJournal } from '../journal/sqlite-journal.js';
import { divergence, type DivergenceReport } from '../report/divergence.js';
import { renderDivergence } from '../report/divergence-page.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { VirtualClock, type TimeSource } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { shown } from '../util/shown.js';
import { quietOf, Replay, virtualVenue, type BacktestVenue } from './backtest-driver.js';
import { buildCore, type Core, type TradedSymbols } from './core.js';
import { Schedules } from './cron.js';
import { riskLimits, strategySettings } from './kernel.js';
import { pollChoices } from './poll-plan.js';
import { DIVERGENCE_RULES, journalOrders } from './replay-journal.js';
import type { MarketStreams } from './trading-loop.js';

export interface ShadowOptions {
  loaded: LoadedConfig;
  /** The live venue's instruments and the symbols traded. */
  instruments: ReadonlyMap<string, Instrument>;
  symbols: TradedSymbols;
  /** The live daemon's polled streams (with the spot pairs' public trades) and its journal. */
  live: { streams: MarketStreams; trades$?: Observable<Stamped<PublicTrade[]>>; journal: Journal };
  /** The wall clock. */
  clock: TimeSource;
  logger: Logger;
  definitions?: ReadonlyMap<string, StrategyDefinition<unknown>>;
  /** The live strategies' saved state by id, which the shadow's start from (it saves none of its own). */
  state?: (strategyId: string) => string | undefined;
}

/** The simulator's accounts as the live ones stood when the shadow started (spot balances, futures collateral). */
function accountsOf(balances: readonly Balance[], leverage: number): SimAccounts {
  const spot: Record<string, string> = {};
  for (const b of balances) if (b.surface === 'spot') spot[b.asset] = b.total.toString();
  const collateral = balances.find((b) => b.surface === 'futures' && b.asset === 'USDT')?.total ?? Decimal.ZERO;
  return { spot, futuresCollateral: collateral.toString(), leverage };
}

export class Shadow {
  /** Records polled but not yet replayed (beyond the horizon, or not yet flushed), oldest first once sorted. */
  private pending: ReplayRecord[] = [];
  private readonly recorder = new TapeRecorder();
  private readonly subs = new Subscription();
  /** Everything before this instant has been polled: the shadow may run up to it. */
  private horizonMs: number;
  private tradesHorizonMs = -Infinity;
  private tickersHorizonMs = -Infinity;
  /** The replay's runs, one after another. */
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Per symbol, the stretches the shadow's market may miss trades in (a full trades read, a late trade, a poll gap). */
  private readonly gaps = new Map<string, Array<[number, number]>>();
  private lastTradesPollMs: number | undefined;
  /** How far the replay has run (the report reads up to here). */
  private replayedMs: number;
  /** The report written at the stop, served from then on. */
  private final: DivergenceReport | undefined;
  private readonly log: Logger;

  private constructor(
    private readonly opts: ShadowOptions,
    private readonly venue: BacktestVenue,
    readonly core: Core,
    private readonly journal: SqliteJournal,
    private readonly replay: Replay,
    readonly startMs: number,
  ) {
    this.horizonMs = startMs;
    this.replayedMs = startMs;
    this.log = opts.logger.child({ component: 'shadow' });
  }

  /** Builds the shadow's simulator (seeded with the live account's balances) and core, and follows the live streams. */
  static async start(opts: ShadowOptions): Promise<Shadow> {
    const cfg = opts.loaded.config;
    const { symbols } = opts;
    const balances = await firstValueFrom(opts.live.streams.balances$);
    const startMs = opts.clock.now();
    const market = new ReplayMarket(symbols.all.map((s) => specFromInstrument(opts.instruments.get(s)!, Decimal.fromInt(1))));
    const clock = new VirtualClock(startMs);
    const simulator = new SimulatedExchange(
      market,
      accountsOf(balances.value, cfg.sim.accounts.leverage),
      cfg.sim.retainOrders,
      clock,
      simFuturesOptionsOf(cfg.exchange.margin, cfg.sim.futures),
    );
    simulator.engine.fillModel = cfg.sim.fills;
    const metered = new MeteredClient(simulator, venueBudgetOf(cfg.exchange.rateLimit), clock, cfg.exchange.spotOpenOrders);
    const venue = virtualVenue({
      market,
      simulator,
      metered,
      clock,
      latencyMs: cfg.shadow.latencyMs,
      polls: cfg.daemon.polls,
      choices: pollChoices(cfg, symbols.futures.length),
      closeDelayMs: cfg.daemon.bars.closeDelayMs,
      externalPolls: true,
    });
    const journal = new SqliteJournal(':memory:', { clientOidPrefix: cfg.journal.clientOidPrefix, thread: false });
    const logger = opts.logger.child({ component: 'shadow' }, { level: 'warn' });
    const core = await buildCore({
      instruments: await venue.instruments(),
      bind: venue.bind,
      journal,
      clock,
      logger,
      limits: riskLimits(opts.loaded),
      tracking: cfg.execution,
      margin: marginSettingsOf(cfg.exchange.margin),
      strategies: strategySettings(cfg, opts.state ? { load: opts.state, save: () => undefined } : undefined),
      // A fresh simulator: nothing to settle before trading.
      fencedUntilReconciled: false,
      ...(opts.definitions ? { definitions: opts.definitions } : {}),
    });
    const replay = new Replay(venue, quietOf(clock, core));
    core.runner.intents$.subscribe(replay.touch);
    const log = opts.logger.child({ component: 'shadow' });
    clock.at(startMs, () => {
      replay.touch();
      core.reconcile({ scanForeign: true }).catch((err: unknown) => log.warn({ err: shown(err) }, 'shadow reconciliation failed'));
    });
    core.start(new Schedules(clock, logger, replay.touch), cfg.daemon.reconcileCron, cfg.strategies);
    const shadow = new Shadow(opts, venue, core, journal, replay, startMs);
    shadow.follow();
    shadow.log.info({ latencyMs: cfg.shadow.latencyMs, fills: cfg.sim.fills, symbols: symbols.all }, 'shadow trading the simulator on the live market data');
    return shadow;
  }

  /** What the live daemon polls, taken in: market records to replay, and the instants of its polls. */
  private follow(): void {
    const { streams, trades$ } = this.opts.live;
    const futures = new Set(this.opts.symbols.futures);
    const at = (atMs: number, fn: () => void) => this.venue.clock.at(Math.max(atMs, this.horizonMs), fn);
    this.subs.add(
      streams.tickers$.subscribe((v) => {
        const tickers = [...v.value.values()].filter((t: Ticker) => futures.has(t.symbol));
        if (tickers.length) this.take(this.recorder.take({ tickers, trades: [] }).records);
        at(v.atMs, () => this.venue.showTickers(v));
        this.tickersHorizonMs = Math.max(this.tickersHorizonMs, v.atMs);
        this.advance();
      }),
    );
    this.subs.add(streams.openOrders$.subscribe((v) => at(v.atMs, () => this.venue.pollNow('orders'))));
    this.subs.add(streams.balances$.subscribe((v) => at(v.atMs, () => this.venue.pollNow('balances'))));
    this.subs.add(streams.positions$.subscribe((v) => at(v.atMs, () => this.venue.pollNow('positions'))));
    if (this.opts.symbols.spot.length && trades$) {
      const tradesMs = this.opts.loaded.config.daemon.polls.tradesMs;
      this.subs.add(
        trades$.subscribe((v) => {
          const { records, gaps } = this.recorder.take({ tickers: [], trades: v.value });
          // A full read that did not reach back to the trades already taken, or polls that came too far apart.
          for (const symbol of gaps) this.gap(symbol, this.lastTradesPollMs ?? this.startMs, v.atMs);
          if (this.lastTradesPollMs !== undefined && v.atMs - this.lastTradesPollMs > 3 * tradesMs)
            for (const symbol of this.opts.symbols.spot) this.gap(symbol, this.lastTradesPollMs, v.atMs);
          this.lastTradesPollMs = v.atMs;
          this.take(records);
          this.tradesHorizonMs = Math.max(this.tradesHorizonMs, v.atMs - this.opts.loaded.config.shadow.settleMs);
          this.advance();
        }),
      );
    }
  }

  /** A stretch of a symbol's market the shadow may lack, merged with the one before when they meet (a long outage: one). */
  private gap(symbol: string, fromMs: number, toMs: number): void {
    const list = this.gaps.get(symbol);
    if (!list) return void this.gaps.set(symbol, [[fromMs, toMs]]);
    const last = list.at(-1)!;
    if (fromMs <= last[1]) last[1] = Math.max(last[1], toMs);
    else list.push([fromMs, toMs]);
  }

  /**
   * Records polled: replayed once the horizon passes them; one the shadow already ran past is a gap in its market.
   * Of those made before the shadow started, each symbol's last is where its market stands at the start.
   */
  private take(records: readonly ReplayRecord[]): void {
    const before = new Map<string, ReplayRecord>();
    for (const r of records) {
      if (r.ts < this.startMs) before.set(r.symbol, { ...r, ts: this.startMs });
      else if (r.ts < this.horizonMs) this.gap(r.symbol, r.ts, this.horizonMs);
      else this.pending.push(r);
    }
    if (this.horizonMs === this.startMs) this.pending.push(...before.values());
  }

  /**
   * The horizon moved on as far as every source has been polled; the replay run up to it. Trades polls that stopped
   * coming (a failing read) do not hold the shadow back for more than a few of their periods: it follows the tickers,
   * and the stretch is a gap of the spot pairs' market.
   */
  private advance(): void {
    const staleAfterMs = 5 * this.opts.loaded.config.daemon.polls.tradesMs;
    const tradesFollowed = this.opts.symbols.spot.length > 0 && this.opts.live.trades$ !== undefined;
    const tradesLate = tradesFollowed && this.tickersHorizonMs - Math.max(this.tradesHorizonMs, this.startMs) > staleAfterMs;
    if (tradesLate) for (const symbol of this.opts.symbols.spot) this.gap(symbol, Math.max(this.tradesHorizonMs, this.startMs), this.tickersHorizonMs);
    const polled = tradesFollowed && !tradesLate ? Math.min(this.tradesHorizonMs, this.tickersHorizonMs) : this.tickersHorizonMs;
    if (this.stopped || polled <= this.horizonMs) return;
    this.horizonMs = polled;
    const horizon = polled;
    this.running = this.running.then(async () => {
      this.pending.sort((a, b) => a.ts - b.ts);
      const due = this.pending.findIndex((r) => r.ts > horizon);
      const now = due < 0 ? this.pending : this.pending.slice(0, due);
      this.pending = due < 0 ? [] : this.pending.slice(due);
      this.venue.market.append(now);
      await this.replay.run(horizon, () => undefined);
      this.replayedMs = horizon;
    });
    this.running = this.running.catch((err: unknown) => this.log.error({ err: String(err) }, 'shadow replay failed'));
  }

  /** How live differs from the shadow so far: the live orders written since the shadow started, up to where it has run. */
  report(): DivergenceReport {
    if (this.final) return this.final;
    const cfg = this.opts.loaded.config;
    const live = journalOrders(this.opts.live.journal, this.startMs, this.replayedMs);
    const sim = journalOrders(this.journal, this.startMs, this.replayedMs);
    return divergence(
      { fromMs: this.startMs, toMs: this.replayedMs },
      { source: 'live', orders: live },
      { source: 'shadow (the in-process simulator on the polled market data)', orders: sim, fillModel: cfg.sim.fills, latencyMs: cfg.shadow.latencyMs },
      { ...DIVERGENCE_RULES, simArrivalMs: Math.floor(cfg.shadow.latencyMs / 2), arrivalToleranceMs: SAME_INSTANT_MS, gaps: this.gaps },
    );
  }

  /** Everything polled replayed, the shadow stopped, its report written to `shadow.out`; returns the report (once). */
  stop(): Promise<{ report: DivergenceReport; files: string[] }> {
    this.stopping ??= this.end();
    return this.stopping;
  }

  private stopping: Promise<{ report: DivergenceReport; files: string[] }> | undefined;

  private async end(): Promise<{ report: DivergenceReport; files: string[] }> {
    this.subs.unsubscribe();
    await this.running;
    this.stopped = true;
    // The shadow's own work goes on a while past the last data, as the live daemon's did before it stopped: its order
    // tracker learns the fills the replayed market made (no new market data: nothing else can fill).
    await this.replay.run(this.replayedMs + SETTLE_AT_STOP_MS, () => undefined);
    this.core.stopIntake();
    const report = this.report();
    this.final = report;
    const out = this.opts.loaded.config.shadow.out;
    mkdirSync(out, { recursive: true });
    const files = [join(out, 'divergence.json'), join(out, 'divergence.html')];
    writeFileSync(files[0]!, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(files[1]!, renderDivergence(report));
    this.journal.close();
    return { report, files };
  }
}

/** How long past its last data the shadow's timers run at the stop (virtual ms): a reconciliation cycle and more. */
const SETTLE_AT_STOP_MS = 10_000;

/** Twins decided on the same live poll are written within this of each other on the two sides (ms): the same moment. */
const SAME_INSTANT_MS = 50;
