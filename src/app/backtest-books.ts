// What a backtest keeps while it runs, for its report: the account sampled in virtual time (equity.csv), the fills
// folded as they happen (trades, round trips, PnL by strategy), the funding the ledger booked. Nothing here acts on
// the run: it reads the simulator and the executor's events.
import { join, sep } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Balance } from '../domain/market.js';
import type { SqliteJournal } from '../journal/sqlite-journal.js';
import { BacktestFills } from '../report/backtest-fills.js';
import { writeBacktestFiles, type BacktestReport } from '../report/backtest-files.js';
import { EquityCsv } from '../report/equity-csv.js';
import { EquitySamples, type AccountNow } from '../report/equity-samples.js';
import type { ExecutionTally } from '../report/execution-tally.js';
import { FundingCollector, fundingRows } from '../report/futures.js';
import type { StrategyPnl } from '../report/metrics.js';
import type { BacktestVenue } from './backtest-driver.js';
import type { Core } from './core.js';

/** What the books read from the run. */
export interface BooksSource {
  loaded: LoadedConfig;
  venue: BacktestVenue;
  core: Core;
  journal: SqliteJournal;
  tally: ExecutionTally;
  outDir: string;
  writeFiles: boolean;
  /** Whether the round trips' PnLs are kept for the result (research jobs). */
  keepTripPnls: boolean;
}

/** The books once the run is over: what the report needs besides the samples and the fills. */
export interface ClosedBooks {
  orders: Record<string, number>;
  funded: ReturnType<typeof fundingRows>;
  pnls: Record<string, StrategyPnl>;
}

export class BacktestBooks {
  /** How often the account is sampled: backtest.sampleMs, else at most ~5,000 samples over the data. */
  readonly sampleMs: number;
  /** Whether the strategies trade futures (the report's futures part, margin figures, funding). */
  readonly tradesFutures: boolean;
  readonly samples: EquitySamples;
  readonly fills: BacktestFills;
  readonly fundingLedger: FundingCollector;
  private equityCsv: EquityCsv | undefined;
  private readonly onlyTraded: boolean;
  private readAt = Number.NaN;
  private balances: Balance[] = [];
  private positions: AccountNow['positions'] = [];
  private settled: number;

  constructor(private readonly src: BooksSource) {
    const { venue, core } = src;
    const { startMs: start, endMs: end } = venue;
    const engine = venue.simulator.engine;
    const { symbols } = core;
    this.sampleMs = src.loaded.config.backtest.sampleMs ?? Math.max(1000, Math.ceil((end - start) / 5000 / 1000) * 1000);
    this.tradesFutures = symbols.futures.length > 0;
    // Whether every contract the simulator lists is one the strategies trade (positions read are all there can be).
    this.onlyTraded = engine.instruments('futures').every((i) => symbols.futures.includes(i.symbol));
    // Funding entries, read from the ledger once a settlement of a traded contract has come (and at the end): the
    // ledger keeps a bounded history.
    this.fundingLedger = new FundingCollector((query) => engine.ledger(query));
    this.settled = this.settledUpTo();
    // What equity counts: the balances of the surfaces the strategies trade.
    const counted = (balances: Balance[]) => balances.filter((b) => (b.surface === 'futures' ? this.tradesFutures : symbols.spot.length > 0));
    this.samples = new EquitySamples(core.instruments, counted, this.accountNow());
    // The fills, folded as they happen: the run keeps no list of them, and what grows with them is spilled next to
    // the report. A fill's owner is known once the venue's answer to its order has come back (an event says it, or
    // the journal); a market order fills before that.
    this.fills = new BacktestFills({
      futures: new Set(symbols.futures),
      marks: this.samples.marks,
      chart: this.samples.prices,
      keepTripPnls: src.keepTripPnls,
      // Spilled to hidden files in the output folder (`.trades.csv.part`, `.round-trips.csv.part`), merged at the end.
      ...(src.writeFiles ? { spillTo: `${join(src.outDir, '.')}${sep}.` } : {}),
    });
  }

  /** Starts keeping the books: equity.csv as the samples are taken, each fill as it happens, a sample every sampleMs. */
  open(): void {
    const { venue, core, tally } = this.src;
    const engine = venue.simulator.engine;
    if (this.src.writeFiles) this.equityCsv = new EquityCsv(join(this.src.outDir, '.equity.csv.part'), this.tradesFutures);
    // How a futures fill was made is read as it happens: the simulator keeps a bounded history of fill details.
    engine.onFill = (f, order) => {
      const detail = order.surface === 'futures' ? engine.fillDetail(f.symbol, f.fillId) : undefined;
      const liquidation = order.liquidation === true;
      const kind = detail || liquidation ? { taker: detail?.taker ?? null, liquidation, positionSide: detail?.positionSide ?? null } : undefined;
      this.fills.fill(f, kind, liquidation ? this.symbolOwner(f.symbol, '(liquidation)') : tally.ownerOf(f.orderId));
    };
    core.executor.events$.subscribe((e) => {
      if (e.type === 'accepted' || e.type === 'resolved') this.fills.resolve(e.orderId, e.strategyId, e.atMs);
    });
    venue.clock.every(venue.startMs, this.sampleMs, this.sample);
  }

  /** The last sample and funding, the fills' owners settled, the journal saved (when files are written) and closed. */
  close(journalPath: string): ClosedBooks {
    const { venue, core, journal, tally } = this.src;
    const { clock, simulator } = venue;
    const engine = simulator.engine;
    if (this.samples.lastMs !== clock.now()) this.sample();
    if (this.tradesFutures) this.fundingLedger.collect(clock.now());
    const orders = journal.countByState();
    const finalTickers = venue.tickersNow(core.symbols);
    const funded = fundingRows(this.fundingLedger.entries, (symbol, atMs) => engine.funding.rate(symbol, engine.funding.lastSettlementMs(symbol, atMs)));
    this.fills.finish((orderId) => tally.ownerOf(orderId) ?? this.ownerInJournal(orderId) ?? '(not ours)');
    const pnls = this.fills.strategies.result(
      (s) => finalTickers.get(s)?.last,
      funded.flatMap((r) => (r.kind === 'funding' ? [{ strategy: this.symbolOwner(r.symbol, '(funding)'), amount: r.amount }] : [])),
    );
    if (this.src.writeFiles) journal.saveTo(journalPath);
    journal.close();
    return { orders, funded, pnls };
  }

  /** Writes the run's files: report.json and .html, trades.csv, round-trips.csv, equity.csv. */
  write(report: Omit<BacktestReport, 'trades'>, funded: ClosedBooks['funded']): void {
    const { fills, samples } = this;
    const parts = { trips: fills.trips, executions: fills.executions!, funding: funded, markers: fills.markers.markers(), equityCsv: this.equityCsv! };
    const title = `Backtest: ${this.src.loaded.config.strategies.map((s) => s.id).join(', ')}`;
    writeBacktestFiles(this.src.outDir, report, parts, samples.points, samples.prices, title);
  }

  /** The spilled parts left behind by a run that stopped early. */
  discard(): void {
    this.fills.discard();
    this.equityCsv?.discard();
  }

  /** A sample of the account now; the fills of orders answered without an event get their owner; funding read once settled. */
  private readonly sample = (): void => {
    const { clock } = this.src.venue;
    this.samples.sample(clock.now(), this.accountNow());
    this.equityCsv?.take(this.samples.points);
    this.fills.settle(this.ownerInJournal, clock.now() - this.sampleMs, clock.now());
    if (!this.tradesFutures || this.settledUpTo() === this.settled) return;
    this.settled = this.settledUpTo();
    this.fundingLedger.collect(clock.now());
  };

  /** The simulated account as it truly is (not as last polled). Balances and positions are read again only once the
   * simulator's state moved (orders, fills, funding); prices and the margin rate (at the marks) every time. */
  private accountNow(): AccountNow {
    const { venue, core } = this.src;
    const { simulator } = venue;
    const engine = simulator.engine;
    const { symbols } = core;
    if (engine.version !== this.readAt) {
      this.readAt = engine.version;
      this.positions = symbols.futures.flatMap((s) => simulator.positionsNow(s));
      this.balances = [...simulator.balancesNow('spot'), ...simulator.balancesNow('futures')];
    }
    const now: AccountNow = { tickers: venue.tickersNow(symbols), balances: this.balances, positions: this.positions };
    if (!this.tradesFutures) return now;
    // Without a position the margin rates are null: the account's view at the marks is read only while one is held.
    if (this.positions.length === 0 && this.onlyTraded) return Object.assign({}, now, { margin: { marginRate: null, maintenanceRate: null } });
    const view = engine.accountView();
    return Object.assign({}, now, { margin: { marginRate: view.marginRate, maintenanceRate: view.maintenanceRate } });
  }

  /** The sum of the traded contracts' last settlement times: it moves when one of them settles. */
  private settledUpTo(): number {
    const { venue, core } = this.src;
    const engine = venue.simulator.engine;
    return core.symbols.futures.reduce((sum, s) => sum + engine.funding.lastSettlementMs(s, venue.clock.now()), 0);
  }

  /** A liquidation's close and funding belong to no order of a strategy: to the strategy trading the contract, if one alone does. */
  symbolOwner(symbol: string, otherwise: string): string {
    const owners = this.src.loaded.config.strategies.filter((s) => s.symbols.includes(symbol));
    return owners.length === 1 ? owners[0]!.id : otherwise;
  }

  private readonly ownerInJournal = (orderId: string): string | undefined => this.src.journal.orderByOrderId(orderId)?.strategyId;
}
