// A clean stop of the trading core: intake closed, the writes in flight drained within the time budget, the
// strategies' own orders cancelled when configured (with one last reconciliation for cancels answered "not found"),
// and what is left at the venue said in the log.
import type { JournalOrder } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Core } from './core.js';

export interface ShutdownSettings {
  /** Time budget of the stop (ms, from `startedAtMs`); 1.5 s of it is kept for cancels and closing. */
  timeoutMs: number;
  cancelOpenOrders: boolean;
  cancelTriggers: boolean;
}

/** Stops the core; resolves to whether the writes in flight drained within the budget. */
export async function shutdownCore(core: Core, settings: ShutdownSettings, clock: Clock, log: Logger, startedAtMs: number): Promise<boolean> {
  core.stopIntake();
  const budgetMs = Math.max(0, startedAtMs + settings.timeoutMs - 1500 - clock.now());
  let timer: { cancel(): void } | undefined;
  const drained = await Promise.race([
    Promise.all([...core.inFlight]).then(() => true),
    new Promise<boolean>((resolve) => (timer = clock.setTimer(() => resolve(false), budgetMs))),
  ]);
  timer?.cancel();
  if (settings.cancelOpenOrders) {
    for (const symbol of core.symbols.all) {
      const surface = core.instruments.get(symbol)!.surface;
      const r = await core.executor.cancelAllOwn(surface, symbol, settings.cancelTriggers).catch((err: unknown) => {
        log.warn({ err: String(err), symbol }, 'cancel on shutdown failed');
        return undefined;
      });
      if (r)
        log.info(
          { symbol, canceled: r.events.filter((e) => e.type === 'canceled').length, triggersKept: r.keptTriggers.length },
          'open orders canceled on shutdown',
        );
    }
    // Cancels answered "not found" may have filled: one last look settles them.
    await core.tracker.reconcile().catch((err: unknown) => log.warn({ err: String(err) }, 'final reconciliation failed'));
  }
  // Everything not final: resting, unanswered (it may rest), being canceled, lost (still checked next start).
  const left = core.journal.activeOrders();
  if (left.length) {
    const show = (r: JournalOrder) => ({
      clientOid: r.clientOid,
      symbol: r.symbol,
      side: r.side,
      price: r.price,
      state: r.state,
      ...(r.isTrigger ? { triggerPrice: r.triggerPrice } : {}),
    });
    const triggers = left.filter((r) => r.isTrigger).map(show);
    const kept = triggers.length && settings.cancelOpenOrders && !settings.cancelTriggers;
    log.info(
      {
        open: left.filter((r) => !r.isTrigger).map(show),
        triggers,
        ...(kept ? { kept: 'trigger orders stay by choice (daemon.shutdown.cancelTriggers: false)' } : {}),
      },
      'orders left at the venue',
    );
  }
  return drained;
}
