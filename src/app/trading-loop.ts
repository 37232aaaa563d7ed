// The kernel's wiring, the same in every mode: market-data streams -> strategies (each sees its own orders)
// -> intents, one at a time, -> risk gate and executor; execution events back to the strategies; balances and
// positions -> equity -> journal and the drawdown kill switch. The daemon feeds it polled streams, backtests
// streams replayed in virtual time.
import { Subscription, concatMap, from, tap, type Observable } from 'rxjs';
import type { Stamped } from '../data/poll.js';
import type { Decimal } from '../domain/decimal.js';
import { equity } from '../domain/equity.js';
import type { Balance, Instrument, Position, Surface, Ticker } from '../domain/market.js';
import type { Order } from '../domain/order.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import type { Executor } from '../execution/executor.js';
import type { OrderTracker } from '../execution/order-tracker.js';
import type { RiskGate } from '../execution/risk.js';
import type { Journal } from '../journal/journal.js';
import type { MarketUpdate } from '../strategy/api.js';
import type { StrategyRunner } from '../strategy/runner.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface MarketStreams {
  tickers$: Observable<Stamped<Map<string, Ticker>>>;
  openOrders$: Observable<Stamped<Order[]>>;
  balances$: Observable<Stamped<Balance[]>>;
  positions$: Observable<Stamped<Position[]>>;
}

/** The latest tickers the strategies saw, filled by the trading loop: the executor's reference prices. */
export class LatestTickers {
  value: Stamped<Map<string, Ticker>> | undefined;

  /** A symbol's last price and when it was read; undefined before the first one. */
  readonly reference = (symbol: string): { price: Decimal; atMs: number } | undefined => {
    const t = this.value?.value.get(symbol);
    return t?.last ? { price: t.last, atMs: this.value!.atMs } : undefined;
  };
}

export interface TradingLoopOptions {
  streams: MarketStreams;
  /** Made before the executor (which reads it) and the loop (which fills it). */
  latest: LatestTickers;
  runner: StrategyRunner;
  executor: Executor;
  journal: Journal;
  risk: RiskGate;
  clock: Clock;
  logger: Logger;
  instruments: Map<string, Instrument>;
  /** Before the strategies see a tickers update (dry-run moves its simulated market here). */
  beforeTickers?: (tickers: Stamped<Map<string, Ticker>>) => void;
  onIntent?: (intent: Intent) => void;
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
    let mine = this.byInstance.get(id);
    if (!mine) {
      mine = items.filter((x) => this.pick(id, symbols, x));
      this.byInstance.set(id, mine);
    }
    return mine;
  }
}

export function startTradingLoop(o: TradingLoopOptions): TradingLoop {
  const log = o.logger.child({ component: 'trading-loop' });
  const subs = new Subscription();
  const inFlight = new Set<Promise<unknown>>();
  let queued = 0;
  // An instance's orders are those the journal says it placed.
  const ownOrders = new PerInstance<Order>((id, symbols, x) => symbols.includes(x.symbol) && x.clientOid !== null && o.journal.order(x.clientOid)?.strategyId === id);
  const ownPositions = new PerInstance<Position>((_, symbols, x) => symbols.includes(x.symbol));

  subs.add(
    o.executor.events$.subscribe((e) => {
      o.onEvent?.(e);
      o.runner.onEvent(e);
    }),
  );
  // Intents run one at a time; the write in flight is tracked outside the stream so shutdown can wait for it.
  subs.add(
    o.runner.intents$
      .pipe(
        tap(() => queued++),
        concatMap((intent) => {
          queued--;
          o.onIntent?.(intent);
          const p = o.executor.submit(intent).catch((err: unknown) => log.error({ err: String(err), intent: intent.kind }, 'intent failed'));
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
  subs.add(o.streams.openOrders$.subscribe((x) => (orders = x.value)));
  subs.add(o.streams.balances$.subscribe((x) => (balances = x.value)));
  subs.add(o.streams.positions$.subscribe((x) => (positions = x.value)));
  subs.add(
    o.streams.tickers$.subscribe((tickers) => {
      o.latest.value = tickers;
      o.beforeTickers?.(tickers);
      const nowMs = o.clock.now();
      try {
        o.runner.onMarket((sc): MarketUpdate => ({
          nowMs,
          tickers: tickers.value,
          openOrders: ownOrders.of(sc.id, sc.symbols, orders),
          positions: ownPositions.of(sc.id, sc.symbols, positions),
          balances,
        }));
      } catch (err) {
        log.error({ err: String(err) }, 'market update failed: strategies skipped this one');
      }
    }),
  );

  // Equity feeds the drawdown kill switch and the journal.
  subs.add(
    o.streams.balances$.subscribe((b) => {
      const eq = equity(b.value, positions, o.latest.value?.value, o.instruments);
      if (!eq) return;
      const now = o.clock.now();
      for (const [surface, value] of Object.entries(eq.bySurface)) o.journal.recordEquity(surface as Surface, value.toString(), now);
      o.onEquity?.(eq.bySurface, now);
      if (o.risk.onEquity(eq.total, now)) log.error({ equity: eq.total.toString(), reason: o.risk.latchReason() }, 'drawdown kill switch: trading halted until an operator resets it');
    }),
  );

  return {
    inFlight,
    queued: () => queued,
    stop: () => subs.unsubscribe(),
  };
}

/** One reconciliation; new orders are allowed once nothing is left unresolved (the fence stays otherwise). */
export async function reconcileAndOpen(tracker: OrderTracker, executor: Executor, logger: Logger, scanForeign: boolean): Promise<void> {
  const r = await tracker.reconcile({ scanForeign });
  if (r.unresolved === 0 && executor.fenced) {
    executor.unfence();
    logger.info({ resolved: r.resolved, lost: r.lost, foreign: r.foreign.length }, 'reconciled: trading');
  }
}
