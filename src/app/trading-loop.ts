// The trading loop of the core (core.ts), the same in every mode: market-data streams -> strategies (each sees its
// own orders) -> intents, one at a time, -> risk gate and executor; execution events back to the strategies;
// balances and positions -> equity (at trusted prices) -> journal and the drawdown kill switch; positions and
// tickers -> the stop manager, whose syncs take their turn among the intents. The venue the kernel chose feeds it:
// polled streams live, virtual polls in backtests.
import { Subject, Subscription, concatMap, from, merge, tap, type Observable } from 'rxjs';
import type { Stamped } from '../data/poll.js';
import type { Bar } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';
import { equity } from '../domain/equity.js';
import type { Balance, Instrument, Position, PositionSide, Surface, Ticker } from '../domain/market.js';
import type { Order, OrderStatus, TimeInForce } from '../domain/order.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import { PriceSanity, type ReferencePrice } from '../domain/price-sanity.js';
import type { Executor } from '../execution/executor.js';
import type { RiskGate } from '../execution/risk.js';
import type { StopManager } from '../execution/stop-manager.js';
import { RESTING_STATES, type Journal, type JournalOrder, type OrderState } from '../journal/journal.js';
import type { MarketUpdate } from '../strategy/api.js';
import type { StrategyRunner } from '../strategy/runner.js';
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

const STATUS_OF_ROW: Partial<Record<OrderState, OrderStatus>> = {
  sending: 'pending',
  unknown: 'pending',
  open: 'open',
  canceling: 'canceling',
  untriggered: 'untriggered',
};

/** A resting journal row as a strategy sees an order (no venue id yet while it is being sent: ''). */
function orderOfRow(r: JournalOrder): Order {
  return {
    surface: r.surface,
    symbol: r.symbol,
    orderId: r.orderId ?? '',
    clientOid: r.clientOid,
    side: r.side,
    positionSide: r.positionSide as PositionSide | null,
    reduceOnly: r.reduceOnly,
    kind: r.kind,
    timeInForce: r.timeInForce as TimeInForce,
    price: r.price === null ? null : Decimal.from(r.price),
    size: Decimal.from(r.size),
    filledSize: Decimal.from(r.filledSize),
    avgFillPrice: r.avgPrice === null ? null : Decimal.from(r.avgPrice),
    fee: r.fee === null ? null : Decimal.from(r.fee),
    // A trigger waits for its price whatever the answer to its placing: a strategy keeps it apart from resting orders.
    status: r.isTrigger && r.state !== 'canceling' ? 'untriggered' : (STATUS_OF_ROW[r.state] ?? 'pending'),
    rawStatus: `journal:${r.state}`,
    rawType: r.kind,
    createdAtMs: r.createdAtMs,
    updatedAtMs: r.updatedAtMs,
  };
}

/**
 * The orders each strategy placed that the journal holds as resting, worked out once per update: a strategy
 * sees its orders at once, not only once a poll of the venue lists them. A row is converted again only when
 * it changed.
 */
class RestingRows {
  private byStrategy = new Map<string, JournalOrder[]>();
  private converted = new Map<string, { row: JournalOrder; order: Order }>();
  /** The journal's activeVersion() when its rows were last read (its rows have not changed while it holds). */
  private readVersion = -1;

  refresh(journal: Journal): void {
    const version = journal.activeVersion();
    if (version === this.readVersion) return;
    this.readVersion = version;
    const active = journal.activeOrders();
    // Nothing resting before or now (a strategy that places nothing): nothing to rebuild.
    if (active.length === 0 && this.byStrategy.size === 0 && this.converted.size === 0) return;
    this.byStrategy = new Map();
    const before = this.converted;
    this.converted = new Map(); // only rows still resting keep their conversion
    for (const r of active) {
      if (!RESTING_STATES.has(r.state)) continue;
      const held = before.get(r.clientOid);
      if (held) this.converted.set(r.clientOid, held);
      const mine = this.byStrategy.get(r.strategyId);
      if (mine) mine.push(r);
      else this.byStrategy.set(r.strategyId, [r]);
    }
  }

  /** The polled orders of an instance, and its resting rows on its symbols that the poll does not list. */
  merge(id: string, symbols: readonly string[], polled: Order[]): Order[] {
    const rows = this.byStrategy.get(id);
    if (!rows) return polled;
    let listed: Set<string> | undefined;
    let out: Order[] | undefined;
    for (const r of rows) {
      if (!symbols.includes(r.symbol)) continue;
      // The polled record wins: it carries the venue's fills.
      listed ??= new Set(polled.flatMap((x) => (x.clientOid ? [x.clientOid] : [])));
      if (listed.has(r.clientOid)) continue;
      (out ??= [...polled]).push(this.order(r));
    }
    return out ?? polled;
  }

  private order(r: JournalOrder): Order {
    const held = this.converted.get(r.clientOid);
    const same =
      held &&
      held.row.state === r.state &&
      held.row.updatedAtMs === r.updatedAtMs &&
      held.row.filledSize === r.filledSize &&
      held.row.orderId === r.orderId &&
      held.row.avgPrice === r.avgPrice &&
      held.row.fee === r.fee;
    if (same) return held.order;
    const order = orderOfRow(r);
    this.converted.set(r.clientOid, { row: r, order });
    return order;
  }
}

/** What a stream tells the stop manager (functions made once: a stream calls them on every update). */
const observePositions = (stops: StopManager, positions: Position[], atMs: number) => stops.observePositions(positions, atMs);
const observeTickers = (stops: StopManager, tickers: Map<string, Ticker>) => stops.observeTickers(tickers);

export function startTradingLoop(opts: TradingLoopOptions): TradingLoop {
  const log = opts.logger.child({ component: 'trading-loop' });
  const subs = new Subscription();
  const inFlight = new Set<Promise<unknown>>();
  let queued = 0;
  // An instance's orders are those the journal says it placed: the polled ones (whatever state the journal holds
  // them in: the venue says they rest), and the resting rows the poll does not list yet.
  const ownOrders = new PerInstance<Order>(
    (id, symbols, x) => symbols.includes(x.symbol) && x.clientOid !== null && opts.journal.order(x.clientOid)?.strategyId === id,
  );
  const resting = new RestingRows();
  const ownPositions = new PerInstance<Position>((_, symbols, x) => symbols.includes(x.symbol));

  subs.add(
    opts.executor.events$.subscribe((e) => {
      opts.onEvent?.(e);
      opts.runner.onEvent(e);
    }),
  );
  // Intents and stop syncs run one at a time; the write in flight is tracked outside the stream so shutdown can
  // wait for it. A stop sync is queued when the stop manager has a request to send, once until it runs.
  const stopSync$ = new Subject<null>();
  let stopSyncQueued = false;
  /** Tells the stop manager what a stream said, then queues a sync if it has something to send. */
  const syncStops = <A, B>(observe: (stops: StopManager, a: A, b: B) => void, a: A, b: B) => {
    const stops = opts.stops;
    if (!stops) return;
    try {
      observe(stops, a, b);
      if (stopSyncQueued || !stops.pending()) return;
    } catch (err) {
      log.error({ err: String(err) }, 'stop manager update failed');
      return;
    }
    stopSyncQueued = true;
    stopSync$.next(null);
  };
  subs.add(
    merge(opts.runner.intents$, stopSync$)
      .pipe(
        tap(() => queued++),
        concatMap((intent) => {
          queued--;
          let sent: Promise<unknown>;
          if (intent) {
            // An observer's failure (the activity log) must not stop the intents.
            try {
              opts.onIntent?.(intent);
            } catch (err) {
              log.error({ err: String(err), intent: intent.kind }, 'intent observer failed');
            }
            sent = opts.executor.submit(intent).catch((err: unknown) => log.error({ err: String(err), intent: intent.kind }, 'intent failed'));
          } else {
            stopSyncQueued = false;
            sent = opts.stops!.sync().catch((err: unknown) => log.error({ err: String(err) }, 'stop sync failed'));
          }
          const p = opts.yieldAfterIntent ? sent.then(opts.yieldAfterIntent) : sent;
          inFlight.add(p);
          void p.finally(() => inFlight.delete(p));
          return from(p);
        }),
      )
      .subscribe(),
  );

  // Each tickers update goes to the strategies with the latest orders, balances and positions (none yet: empty).
  let orders: Order[] = [];
  let balances: Balance[] = [];
  let positions: Position[] = [];
  subs.add(opts.streams.openOrders$.subscribe((x) => (orders = x.value)));
  subs.add(opts.streams.balances$.subscribe((x) => (balances = x.value)));
  subs.add(
    opts.streams.positions$.subscribe((x) => {
      positions = x.value;
      syncStops(observePositions, x.value, x.atMs);
    }),
  );
  // What an instance sees with a tickers update or a bar: the latest tickers, its own orders, its symbols' positions.
  let tickers: Map<string, Ticker> = new Map();
  // One builder for every update (nothing allocated per update but the updates themselves): the instant of the
  // update being handed out, and whether the journal's resting rows were read for it (once per update, and only
  // when an instance takes it).
  let updateNowMs = 0;
  let refreshed = false;
  const update = (sc: { id: string; symbols: string[] }): MarketUpdate => {
    if (!refreshed) {
      resting.refresh(opts.journal);
      refreshed = true;
    }
    return {
      nowMs: updateNowMs,
      tickers,
      openOrders: resting.merge(sc.id, sc.symbols, ownOrders.of(sc.id, sc.symbols, orders)),
      positions: ownPositions.of(sc.id, sc.symbols, positions),
      balances,
    };
  };
  const updateFor = (nowMs: number) => {
    updateNowMs = nowMs;
    refreshed = false;
    return update;
  };
  subs.add(
    opts.streams.tickers$.subscribe((update) => {
      opts.latest.update(update);
      opts.beforeTickers?.(update);
      tickers = update.value;
      try {
        opts.runner.onMarket(updateFor(opts.clock.now()));
      } catch (err) {
        log.error({ err: String(err) }, 'market update failed: strategies skipped this one');
      }
      syncStops(observeTickers, update.value, undefined);
    }),
  );
  if (opts.streams.bar$) {
    subs.add(
      opts.streams.bar$.subscribe((bar) => {
        try {
          opts.runner.onBar(bar, updateFor(opts.clock.now()));
        } catch (err) {
          log.error({ err: String(err), symbol: bar.symbol, timeframe: bar.timeframe }, 'bar failed: strategies skipped it');
        }
      }),
    );
  }

  // Equity feeds the drawdown kill switch and the journal.
  subs.add(
    opts.streams.balances$.subscribe((b) => {
      const eq = equity(b.value, positions, opts.latest.prices(), opts.instruments);
      if (!eq) return;
      const now = opts.clock.now();
      for (const surface in eq.bySurface) opts.journal.recordEquity(surface as Surface, eq.bySurface[surface]!.toString(), now);
      opts.onEquity?.(eq.bySurface, now);
      if (opts.risk.onEquity(eq.total, now))
        log.error({ equity: eq.total.toString(), reason: opts.risk.latchReason() }, 'drawdown kill switch: trading halted until an operator resets it');
    }),
  );

  return {
    inFlight,
    queued: () => queued,
    stop: () => subs.unsubscribe(),
  };
}
