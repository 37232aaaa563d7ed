// The daemon's risk watches: the kill switch's action (risk.onKill) and the funding watch, over the core's streams;
// and the operator's flatten on demand, which takes the place of the configured action until its latch is reset.
import { Subscription } from 'rxjs';
import type { Config } from '../config/schema.js';
import { poll, type Stamped } from '../data/poll.js';
import type { Position } from '../domain/market.js';
import { ExchangeError } from '../exchange/errors.js';
import { FundingWatch } from '../execution/funding-watch.js';
import { KillAction, type KillActionOptions } from '../execution/kill-action.js';
import { KILL_ACTION_LATCHES } from '../execution/latches.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Core } from './core.js';
import type { Metrics } from './http.js';

/** What the watches read: the core, the config's risk and polls, the gauges they set. */
export interface RiskWatchOptions {
  core: Core;
  cfg: Config;
  metrics: Metrics;
  /** When each poll last succeeded, by name: the ledger's is set here. */
  lastPolled: Map<string, number>;
  clock: Clock;
  logger: Logger;
}

/** The risk watches' handle: the subscription that ends them, and the operator's flatten on demand. */
export interface RiskWatches {
  subscription: Subscription;
  /**
   * The kill action's flatten steps now, whatever risk.onKill says: `latch` sets the operator's kill latch, then a
   * flatten pass runs (one latched before acts only on what is left); resolves to what was done.
   */
  flattenNow(latch: () => void): Promise<string>;
}

/**
 * The kill switch's action (risk.onKill), looked at whenever the account is read or the trading state changes, and
 * the funding watch (futures traded: the ledger read every daemon.polls.ledgerMs, each settlement journaled once,
 * logged as activity and summed in a gauge). Unsubscribing ends both; a kill pass under way finishes on its own.
 * An operator's flatten takes the place of the configured action until its latch is reset.
 */
export function startRiskWatches(opts: RiskWatchOptions): RiskWatches {
  const { core, cfg, metrics, lastPolled, clock, logger } = opts;
  const log = logger.child({ component: 'daemon' });
  const watches = new Subscription();
  const streams = core.venue.streams!;
  let positionsRead: Stamped<Position[]> | undefined;
  const killOptions: KillActionOptions = {
    mode: cfg.risk.onKill,
    client: core.venue.trading,
    executor: core.executor,
    journal: core.journal,
    clock,
    logger,
    symbols: { spot: core.symbols.spot, futures: core.symbols.futures },
    positions: () => positionsRead,
    afterPass: () => core.reconcile(),
  };
  const kill = new KillAction(killOptions);
  let flattening: KillAction | undefined;
  /** While the operator's flatten sets its latch: the pass is started by the command itself. */
  let latching = false;
  const lookAtKill = () => {
    if (latching) return;
    // The operator's flatten ends with its latch.
    if (flattening && !KILL_ACTION_LATCHES.some((name) => core.journal.latch(name))) {
      flattening.stop();
      flattening = undefined;
    }
    try {
      void (flattening ?? kill).check()?.catch((err: unknown) => log.error({ err: String(err) }, 'kill action failed'));
    } catch (err) {
      log.error({ err: String(err) }, 'kill action failed');
    }
  };
  const flattenNow = async (latch: () => void): Promise<string> => {
    flattening?.stop();
    // Made before the latch is set: a latch set now is fresh to it, and it acts at once.
    const action = new KillAction({ ...killOptions, mode: 'flatten' });
    flattening = action;
    latching = true;
    try {
      latch();
    } finally {
      latching = false;
    }
    const pass = action.check();
    if (!pass) return 'the kill latch was set before this flatten: what is left is flattened at the next positions reading';
    await pass;
    return 'flatten pass done (own orders and trigger orders canceled, futures positions closed at market; what is left is looked at again at the next positions reading)';
  };
  watches.add(
    streams.positions$.subscribe((p) => {
      positionsRead = p;
      lookAtKill();
    }),
  );
  watches.add(streams.balances$.subscribe(lookAtKill));
  watches.add(core.risk.tradingStates$.subscribe(lookAtKill));
  watches.add(() => {
    kill.stop();
    flattening?.stop();
  });

  if (core.symbols.futures.length > 0) {
    const funding = new FundingWatch({ client: core.venue.trading, journal: core.journal, clock });
    const showTotals = () => {
      for (const [symbol, total] of funding.totals()) metrics.fundingTotal.set({ symbol }, total.toNumber());
    };
    showTotals();
    const activity = logger.child({ component: 'activity' });
    const ledger$ = poll(() => funding.poll(), {
      periodMs: cfg.daemon.polls.ledgerMs,
      retries: 1,
      retryDelayMs: 1000,
      clock,
      retryable: (e) => e instanceof ExchangeError && e.retryable,
      onError: (e) => log.warn({ poll: 'ledger', err: e instanceof ExchangeError ? e.summary() : String(e) }, 'poll failed: cycle skipped'),
    });
    watches.add(
      ledger$.subscribe(({ value, atMs }) => {
        lastPolled.set('ledger', atMs);
        for (const r of value) activity.info({ event: 'funding', symbol: r.symbol, amount: r.amount, ref: r.ref, settledAtMs: r.atMs }, 'funding settled');
        if (value.length) showTotals();
      }),
    );
  }
  return { subscription: watches, flattenNow };
}
