// The kernel's wiring, the same in every mode: market-data streams -> strategies (each sees its own orders)
// -> intents, one at a time, -> risk gate and executor; execution events back to the strategies; balances and
// positions -> equity -> journal and the drawdown kill switch. The daemon feeds it polled streams, backtests
// streams replayed in virtual time.
import { Subscription, concatMap, from, startWith, withLatestFrom, type Observable } from 'rxjs';
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

export interface TradingLoopOptions {
  streams: MarketStreams;
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
  /** The latest tickers the strategies saw (the executor's reference prices). */
  latest(): Stamped<Map<string, Ticker>> | undefined;
  /** Writes in flight (shutdown waits for them). */
  readonly inFlight: ReadonlySet<Promise<unknown>>;
  /** Nothing more reaches the strategies or the executor (writes in flight finish on their own). */
  stop(): void;
}

/** The orders of each strategy instance, by the journal's record of who placed them. */
class OwnOrders {
  private source: Order[] | undefined;
  private readonly byInstance = new Map<string, Order[]>();
  constructor(private readonly journal: Pick<Journal, 'order'>) {}

  of(id: string, symbols: readonly string[], orders: Order[]): Order[] {
    if (orders !== this.source) {
      this.source = orders;
      this.byInstance.clear();
    }
    let own = this.byInstance.get(id);
    if (!own) {
      own = orders.filter((o) => symbols.includes(o.symbol) && o.clientOid !== null && this.journal.order(o.clientOid)?.strategyId === id);
      this.byInstance.set(id, own);
    }
    return own;
  }
}

const empty = <T>(value: T): Stamped<T> => ({ value, atMs: 0 });

export function startTradingLoop(o: TradingLoopOptions): TradingLoop {
  const log = o.logger.child({ component: 'trading-loop' });
  const subs = new Subscription();
  const inFlight = new Set<Promise<unknown>>();
  let latest: Stamped<Map<string, Ticker>> | undefined;
  const own = new OwnOrders(o.journal);

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
        concatMap((intent) => {
          o.onIntent?.(intent);
          const p = o.executor.submit(intent).catch((err: unknown) => log.error({ err: String(err), intent: intent.kind }, 'intent failed'));
          inFlight.add(p);
          void p.finally(() => inFlight.delete(p));
          return from(p);
        }),
      )
      .subscribe(),
  );

  subs.add(
    o.streams.tickers$
      .pipe(withLatestFrom(o.streams.openOrders$.pipe(startWith(empty<Order[]>([]))), o.streams.balances$.pipe(startWith(empty<Balance[]>([]))), o.streams.positions$.pipe(startWith(empty<Position[]>([])))))
      .subscribe(([tickers, orders, balances, positions]) => {
        latest = tickers;
        o.beforeTickers?.(tickers);
        const nowMs = o.clock.now();
        o.runner.onMarket((sc): MarketUpdate => ({
          nowMs,
          tickers: tickers.value,
          openOrders: own.of(sc.id, sc.symbols, orders.value),
          positions: positions.value.filter((p) => sc.symbols.includes(p.symbol)),
          balances: balances.value,
        }));
      }),
  );

  // Equity feeds the drawdown kill switch and the journal.
  let positionsNow: Position[] = [];
  subs.add(o.streams.positions$.subscribe((p) => (positionsNow = p.value)));
  subs.add(
    o.streams.balances$.subscribe((b) => {
      const eq = equity(b.value, positionsNow, latest?.value, o.instruments);
      if (!eq) return;
      const now = o.clock.now();
      for (const [surface, value] of Object.entries(eq.bySurface)) o.journal.recordEquity(surface as Surface, value.toString(), now);
      o.onEquity?.(eq.bySurface, now);
      if (o.risk.onEquity(eq.total, now)) log.error({ equity: eq.total.toString(), reason: o.risk.latchReason() }, 'drawdown kill switch: trading halted until an operator resets it');
    }),
  );

  return {
    latest: () => latest,
    inFlight,
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
