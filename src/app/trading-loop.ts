// The trading loop of the core (core.ts), the same in every mode: market-data streams -> strategies (each sees its
// own orders) -> intents, one at a time, -> risk gate and executor; execution events back to the strategies;
// balances and positions -> equity (at trusted prices) -> journal and the drawdown kill switch; positions and
// tickers -> the stop manager, whose syncs take their turn among the intents. The venue the kernel chose feeds it:
// polled streams live, virtual polls in backtests.
import { Subject, Subscription, concatMap, from, merge, tap, type Observable } from 'rxjs';
import { inOrder, type Stamped } from '../data/poll.js';
import type { Bar } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';
import { equity } from '../domain/equity.js';
import type { Balance, Instrument, Position, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import { PriceSanity, type ReferencePrice } from '../domain/price-sanity.js';
import type { Executor } from '../execution/executor.js';
import type { RiskGate } from '../execution/risk.js';
import type { StopManager } from '../execution/stop-manager.js';
import type { Journal } from '../journal/journal.js';
import type { MarketUpdate } from '../strategy/api.js';
import type { StrategyRunner } from '../strategy/runner.js';
import { RestingRows } from './resting-rows.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface MarketStreams {
  tickers$: Observable<Stamped<Map<string, Ticker>>>;
  openOrders$: Observable<Stamped<Order[]>>;
  balances$: Observable<Stamped<Balance[]>>;
  positions$: Observable<Stamped<Position[]>>;
  /** Closed bars of the series the strategies asked for, oldest first per series. */
  bar$?: Observable<Bar>;
}

/** Every strategy waits (a bar is kept in the history, handed to none). */
const ALL_WAIT = (): boolean => true;

/** The streams with every answer older than one already seen left out (see inOrder). */
export function streamsInOrder(s: MarketStreams): MarketStreams {
  return {
    ...s,
    tickers$: s.tickers$.pipe(inOrder()),
    openOrders$: s.openOrders$.pipe(inOrder()),
    balances$: s.balances$.pipe(inOrder()),
    positions$: s.positions$.pipe(inOrder()),
  };
}

/**
 * The latest tickers the strategies saw, filled by the trading loop, and which of their prices are trusted
 * (domain/price-sanity.ts): the executor's reference prices and the prices equity is valued at.
 */
export class LatestTickers {
  value: Stamped<Map<string, Ticker>> | undefined;
  private readonly sanity: PriceSanity;

  /** `outlierPct`: the risk limit of that name. */
  constructor(outlierPct: Decimal) {
    this.sanity = new PriceSanity(outlierPct);
  }

  /** Takes a tickers update (read at `atMs`, local clock). */
  update(tickers: Stamped<Map<string, Ticker>>): void {
    this.value = tickers;
    // forEach with this as its receiver: no iterator, no closure per update.
    tickers.value.forEach(this.observeOne, this);
  }

  private observeOne(this: LatestTickers, t: Ticker): void {
    this.sanity.observe(t, this.value!.atMs);
  }

  /**
   * A symbol's price in the latest update, when it was trusted, with when it was read and when the venue's own
   * timestamp last advanced; undefined before the first one, when the symbol is missing from the latest update,
   * or when its reading was not trusted (no order is priced off a bad sample).
   */
  readonly reference = (symbol: string): ReferencePrice | undefined => {
    const r = this.sanity.reference(symbol);
    return r && r.atMs === this.value?.atMs ? r : undefined;
  };

  private readonly acceptedPrice = (symbol: string): Decimal | undefined => this.sanity.accepted(symbol);

  /** The last trusted price of each symbol (a bad reading leaves the one before); undefined before any update. */
  prices(): ((symbol: string) => Decimal | undefined) | undefined {
    return this.value ? this.acceptedPrice : undefined;
  }
}

export interface TradingLoopOptions {
  streams: MarketStreams;
  /** Made before the executor (which reads it) and the loop (which fills it). */
  latest: LatestTickers;
  runner: StrategyRunner;
  executor: Executor;
  journal: Journal;
  risk: RiskGate;
  /** Managed stops: told of positions and tickers; its syncs run one at a time with the intents. */
  stops?: StopManager;
  clock: Clock;
  logger: Logger;
  instruments: Map<string, Instrument>;
  /** Before the strategies see a tickers update (dry-run moves its simulated market here). */
  beforeTickers?: (tickers: Stamped<Map<string, Ticker>>) => void;
  onIntent?: (intent: Intent) => void;
  /**
   * Awaited after each intent (the daemon: a turn of the event loop). A strategy that answers every denial with a
   * new intent would otherwise keep the loop in promise continuations, and timers, polls, /health and signals
   * would never run.
   */
  yieldAfterIntent?: () => Promise<void>;
  onEvent?: (event: ExecutionEvent) => void;
  onEquity?: (bySurface: Record<string, Decimal>, atMs: number) => void;
  /**
   * Strategies get no update until the account has been read (open orders, balances, positions once each): before
   * that, an empty list would say "nothing held" where nothing is known yet (a restart with a position open). A
   * backtest starts from an account it knows, and does not wait.
   */
  accountFirst?: boolean;
}

export interface TradingLoop {
  /** Writes in flight (shutdown waits for them). */
  readonly inFlight: ReadonlySet<Promise<unknown>>;
  /** Intents waiting for the one in flight to finish. */
  queued(): number;
  /** Nothing more reaches the strategies or the executor (writes in flight finish on their own). */
  stop(): void;
}

/** An empty list handed to every instance (frozen: shared). */
const NONE: readonly never[] = Object.freeze([]);

/** Per instance, what it sees of one list (its own orders, its symbols' positions), worked out once per list. */
class PerInstance<T> {
  private source: T[] | undefined;
  private readonly byInstance = new Map<string, T[]>();
  constructor(private readonly pick: (id: string, symbols: readonly string[], item: T) => boolean) {}

  of(id: string, symbols: readonly string[], items: T[]): T[] {
    if (items !== this.source) {
      this.source = items;
      this.byInstance.clear();
    }
    // Nothing to pick from: nothing for anyone (no call of `pick`, no list per instance).
    if (items.length === 0) return NONE as unknown as T[];
    let mine = this.byInstance.get(id);
    if (!mine) {
      mine = items.filter((x) => this.pick(id, symbols, x));
      this.byInstance.set(id, mine);
    }
    return mine;
  }
}

/** What a stream tells the stop manager (functions made once: a stream calls them on every update). */
const observePositions = (stops: StopManager, positions: Position[], atMs: number) => stops.observePositions(positions, atMs);
const observeTickers = (stops: StopManager, tickers: Map<string, Ticker>) => stops.observeTickers(tickers);

/** Starts the loop: execution events to the strategies, their intents (and stop syncs) sent one at a time, the
 * account as polled kept, each market update and closed bar handed to the strategies, equity valued. */
export function startTradingLoop(opts: TradingLoopOptions): TradingLoop {
  const loop = new Loop(opts);
  loop.forwardEvents();
  loop.sendIntents();
  loop.keepAccount();
  loop.handMarket();
  loop.valueEquity();
  return { inFlight: loop.inFlight, queued: () => loop.queued, stop: () => loop.subs.unsubscribe() };
}

/** The trading loop's state and steps (startTradingLoop wires them, in order: the order of subscriptions matters). */
class Loop {
  readonly subs = new Subscription();
  readonly inFlight = new Set<Promise<unknown>>();
  queued = 0;
  /**
   * Intents queued behind the one in flight, by strategy: not written down yet (a write's rows are written as it
   * starts), so not among the orders its updates show. Until they are, it is handed no update: it would ask again.
   */
  private readonly unwritten = new Map<string, number>();
  private readonly waiting = (id: string): boolean => (this.unwritten.get(id) ?? 0) > 0;
  private readonly log: Logger;
  // An instance's orders are those the journal says it placed: the polled ones (whatever state the journal holds
  // them in: the venue says they rest), and the resting rows the poll does not list yet.
  private readonly ownOrders: PerInstance<Order>;
  private readonly resting = new RestingRows();
  private readonly ownPositions = new PerInstance<Position>((_, symbols, x) => symbols.includes(x.symbol));
  // A stop sync is queued when the stop manager has a request to send, once until it runs.
  private readonly stopSync$ = new Subject<null>();
  private stopSyncQueued = false;
  // What an instance sees with a tickers update or a bar: the latest tickers, its own orders, its symbols' positions,
  // the balances (none yet: empty).
  private orders: Order[] = [];
  private balances: Balance[] = [];
  private positions: Position[] = [];
  private tickers: Map<string, Ticker> = new Map();
  // One builder for every update (nothing allocated per update but the updates themselves): the instant of the
  // update being handed out, and whether the journal's resting rows were read for it (once per update, and only
  // when an instance takes it).
  private updateNowMs = 0;
  /** The account reads not made yet (bits: orders, balances, positions), while strategies wait for them (accountFirst). */
  private unread: number;
  private refreshed = false;

  constructor(private readonly opts: TradingLoopOptions) {
    this.unread = opts.accountFirst ? 7 : 0;
    this.log = opts.logger.child({ component: 'trading-loop' });
    this.ownOrders = new PerInstance<Order>(
      (id, symbols, x) => symbols.includes(x.symbol) && x.clientOid !== null && opts.journal.order(x.clientOid)?.strategyId === id,
    );
  }

  /** Execution events to their observer, then to the strategies. */
  forwardEvents(): void {
    const { opts } = this;
    this.subs.add(
      opts.executor.events$.subscribe((e) => {
        opts.onEvent?.(e);
        opts.runner.onEvent(e);
      }),
    );
  }

  /** Intents and stop syncs run one at a time; the write in flight is tracked outside the stream so shutdown can wait for it. */
  sendIntents(): void {
    this.subs.add(
      merge(this.opts.runner.intents$, this.stopSync$)
        .pipe(
          tap((intent) => {
            this.queued++;
            if (intent) this.unwritten.set(intent.strategyId, (this.unwritten.get(intent.strategyId) ?? 0) + 1);
          }),
          concatMap((intent) => {
            this.queued--;
            if (intent) this.unwritten.set(intent.strategyId, this.unwritten.get(intent.strategyId)! - 1);
            const sent = intent ? this.submit(intent) : this.syncStopsNow();
            const p = this.opts.yieldAfterIntent ? sent.then(this.opts.yieldAfterIntent) : sent;
            this.inFlight.add(p);
            void p.finally(() => this.inFlight.delete(p));
            return from(p);
          }),
        )
        .subscribe(),
    );
  }

  private submit(intent: Intent): Promise<unknown> {
    const { opts, log } = this;
    // An observer's failure (the activity log) must not stop the intents.
    try {
      opts.onIntent?.(intent);
    } catch (err) {
      log.error({ err: String(err), intent: intent.kind }, 'intent observer failed');
    }
    return opts.executor.submit(intent).catch((err: unknown) => log.error({ err: String(err), intent: intent.kind }, 'intent failed'));
  }

  private syncStopsNow(): Promise<unknown> {
    this.stopSyncQueued = false;
    return this.opts.stops!.sync().catch((err: unknown) => this.log.error({ err: String(err) }, 'stop sync failed'));
  }

  /** Tells the stop manager what a stream said, then queues a sync if it has something to send. */
  private syncStops<A, B>(observe: (stops: StopManager, a: A, b: B) => void, a: A, b: B): void {
    const stops = this.opts.stops;
    if (!stops) return;
    try {
      observe(stops, a, b);
      if (this.stopSyncQueued || !stops.pending()) return;
    } catch (err) {
      this.log.error({ err: String(err) }, 'stop manager update failed');
      return;
    }
    this.stopSyncQueued = true;
    this.stopSync$.next(null);
  }

  /** The orders, balances and positions as last polled; positions also go to the stop manager. */
  keepAccount(): void {
    const { streams } = this.opts;
    this.subs.add(streams.openOrders$.subscribe((x) => ((this.orders = x.value), (this.unread &= ~1))));
    this.subs.add(streams.balances$.subscribe((x) => ((this.balances = x.value), (this.unread &= ~2))));
    this.subs.add(
      streams.positions$.subscribe((x) => {
        this.unread &= ~4;
        this.positions = x.value;
        this.syncStops(observePositions, x.value, x.atMs);
      }),
    );
  }

  /** What an instance is handed with the update under way. */
  private readonly update = (sc: { id: string; symbols: string[] }): MarketUpdate => {
    if (!this.refreshed) {
      this.resting.refresh(this.opts.journal);
      this.refreshed = true;
    }
    return {
      nowMs: this.updateNowMs,
      tickers: this.tickers,
      openOrders: this.resting.merge(sc.id, sc.symbols, this.ownOrders.of(sc.id, sc.symbols, this.orders)),
      positions: this.ownPositions.of(sc.id, sc.symbols, this.positions),
      balances: this.balances,
    };
  };

  private updateFor(nowMs: number): (sc: { id: string; symbols: string[] }) => MarketUpdate {
    this.updateNowMs = nowMs;
    this.refreshed = false;
    return this.update;
  }

  /** Each tickers update and each closed bar to the strategies, with the latest orders, balances and positions. */
  handMarket(): void {
    const { opts, log } = this;
    this.subs.add(
      opts.streams.tickers$.subscribe((update) => {
        opts.latest.update(update);
        opts.beforeTickers?.(update);
        this.tickers = update.value;
        try {
          if (this.unread === 0) opts.runner.onMarket(this.updateFor(opts.clock.now()), this.waiting);
        } catch (err) {
          log.error({ err: String(err) }, 'market update failed: strategies skipped this one');
        }
        this.syncStops(observeTickers, update.value, undefined);
      }),
    );
    const bar$ = opts.streams.bar$;
    if (!bar$) return;
    this.subs.add(
      bar$.subscribe((bar) => {
        try {
          // Before the account is read the bar is kept in the history all the same (no strategy is handed it).
          opts.runner.onBar(bar, this.updateFor(opts.clock.now()), this.unread === 0 ? this.waiting : ALL_WAIT);
        } catch (err) {
          log.error({ err: String(err), symbol: bar.symbol, timeframe: bar.timeframe }, 'bar failed: strategies skipped it');
        }
      }),
    );
  }

  /** Equity feeds the drawdown kill switch and the journal. */
  valueEquity(): void {
    const { opts, log } = this;
    this.subs.add(
      opts.streams.balances$.subscribe((b) => {
        // A write the journal refuses (fenced off by a newer lease holder, a full disk) skips this valuation; thrown
        // out of a stream handler it would end the process.
        try {
          const eq = equity(b.value, this.positions, opts.latest.prices(), opts.instruments);
          if (!eq) return;
          const now = opts.clock.now();
          for (const surface in eq.bySurface) opts.journal.recordEquity(surface as Surface, eq.bySurface[surface]!.toString(), now);
          opts.onEquity?.(eq.bySurface, now);
          if (opts.risk.onEquity(eq.total, now))
            log.error({ equity: eq.total.toString(), reason: opts.risk.latchReason() }, 'drawdown kill switch: trading halted until an operator resets it');
        } catch (err) {
          log.error({ err: String(err) }, 'equity not valued');
        }
      }),
    );
  }
}
