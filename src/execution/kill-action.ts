// What the kill switch does once it latches (config `risk.onKill`), beside halting new orders. `cancel`: this bot's
// own open orders are canceled (trigger orders that protect a position stay; those that would open one go).
// `flatten`: the same for spot, and for each traded futures contract every order (F28 normal), every trigger order
// (F28 plan), then every position closed at market (F27). Spot holdings are never sold. Each pass is journaled (an
// intent of kind `flatten` or `kill-cancel`, and one risk decision per step with the venue's answers) and logged.
// Once per latch: a latch found set at start, from before it, is acted on again only while something is left (a
// position on a traded contract, an own order resting), and a pass with a failed step or leftovers is retried with
// a growing delay until nothing is left or the latch is reset. A pass runs beside the strategies' intents, never
// in their queue: it holds none of their cancels up.
import type { Position, Surface } from '../domain/market.js';
import type { ExchangeClient, ItemResult, PositionCloseResult } from '../exchange/client.js';
import type { Journal, JournalOrder, Latch } from '../journal/journal.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { Executor } from './executor.js';
import { KILL_ACTION_LATCHES } from './latches.js';
import { ExchangeError } from '../exchange/errors.js';

/** What the kill switch does when it latches (config `risk.onKill`). */
export type OnKill = 'cancel' | 'flatten';

/** The strategy id the kill action's intents and decisions are journaled under. */
export const KILL_ACTOR = 'risk';

export interface KillActionOptions {
  mode: OnKill;
  client: Pick<ExchangeClient, 'cancelAllFutures' | 'closePositions'>;
  executor: Pick<Executor, 'cancelAllOwn' | 'submit'>;
  journal: Journal;
  clock: Clock;
  logger: Logger;
  /** The traded symbols. */
  symbols: { spot: readonly string[]; futures: readonly string[] };
  /** The positions as last polled (traded contracts), and when; undefined before the first poll. */
  positions: () => { value: readonly Position[]; atMs: number } | undefined;
  /** After each pass: a reconciliation settles the journal's orders the venue canceled. */
  afterPass?: () => Promise<void>;
  /** Delay before the first retry, doubled each pass up to maxMs. */
  retry?: { firstMs: number; maxMs: number };
}

/** Where the action stands for one latch. */
interface Progress {
  key: string;
  latch: Latch;
  passes: number;
  /** `now`: a pass is due; `verify`: look again from `atMs` with positions read after `sinceMs`; `done`: nothing left. */
  step: 'now' | 'verify' | 'done';
  atMs: number;
  sinceMs: number;
  failed: boolean;
}

/** One answer of the venue to a step, as journaled. */
type Answer = { id: string; ok: boolean; orderId?: string | null; error?: string | null };

function itemAnswer(r: ItemResult): Answer {
  return r.outcome === 'accepted' ? { id: r.orderId, ok: true } : { id: r.orderId ?? r.clientOid ?? '', ok: false, error: r.error.summary() };
}

function closeAnswer(r: PositionCloseResult): Answer {
  return { id: r.positionId, ok: r.ok, orderId: r.orderId, error: r.error };
}

export class KillAction {
  private readonly log: Logger;
  private readonly startedAtMs: number;
  private progress: Progress | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: KillActionOptions) {
    this.log = opts.logger.child({ component: 'kill-action' });
    this.startedAtMs = opts.clock.now();
  }

  /** The pass under way, if one is (settles when it ends). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** No pass starts any more (one under way finishes). */
  stop(): void {
    this.stopped = true;
  }

  /** The kill latch that holds, if one does (the first of KILL_ACTION_LATCHES). */
  private held(): Latch | undefined {
    for (const name of KILL_ACTION_LATCHES) {
      const latch = this.opts.journal.latch(name);
      if (latch) return latch;
    }
    return undefined;
  }

  /**
   * Looks at the kill latches and acts: call it whenever the account is read or the trading state changes. Returns
   * the pass it started, if it started one.
   */
  check(): Promise<void> | undefined {
    if (this.running || this.stopped) return undefined;
    const latch = this.held();
    if (!latch) {
      if (this.progress) this.log.info({ latch: this.progress.latch.name }, 'kill switch reset: the kill action ends');
      this.progress = undefined;
      return undefined;
    }
    const now = this.opts.clock.now();
    const key = `${latch.name}@${latch.atMs}`;
    if (this.progress?.key !== key) {
      // Latched while this process runs: act now. Found set from before: only if something is left.
      const fresh = latch.atMs >= this.startedAtMs;
      this.progress = { key, latch, passes: 0, step: fresh ? 'now' : 'verify', atMs: now, sinceMs: this.startedAtMs - 1, failed: false };
      if (!fresh)
        this.log.warn(
          { latch: latch.name, reason: latch.reason, onKill: this.opts.mode },
          'kill switch latched before this start: acting again only if something is left',
        );
    }
    const p = this.progress;
    if (p.step === 'done' || now < p.atMs) return undefined;
    if (p.step === 'verify') {
      const left = this.leftovers(p.sinceMs);
      if (left === undefined) return undefined; // no positions read since: look again at the next reading
      if (!p.failed && left.length === 0) {
        p.step = 'done';
        this.log.info(
          { latch: latch.name, passes: p.passes },
          p.passes ? 'kill action complete: nothing left' : 'kill action: nothing left from before this start',
        );
        return undefined;
      }
      if (left.length) this.log.warn({ latch: latch.name, left, passes: p.passes }, 'kill action: something is left: another pass');
    }
    this.running = this.pass(p).finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * What is left to act on: this bot's own resting orders (flatten: on spot only; F28 took the futures ones, which a
   * reconciliation settles in the journal) and, for flatten, the positions of the traded contracts read after
   * `sinceMs`. Undefined when positions have not been read since.
   */
  private leftovers(sinceMs: number): string[] | undefined {
    const flatten = this.opts.mode === 'flatten';
    const own = this.ownResting(flatten ? this.opts.symbols.spot : [...this.opts.symbols.spot, ...this.opts.symbols.futures]).map(
      (r) => `order ${r.clientOid} on ${r.symbol}`,
    );
    if (!flatten || this.opts.symbols.futures.length === 0) return own;
    const read = this.opts.positions();
    if (!read || read.atMs <= sinceMs) return undefined;
    const futures = new Set(this.opts.symbols.futures);
    return [...own, ...read.value.filter((x) => futures.has(x.symbol) && !x.size.isZero()).map((x) => `position ${x.symbol} ${x.side} ${x.size.toString()}`)];
  }

  /** This bot's orders of `symbols` the kill action cancels that still rest: plain orders, and trigger orders that would open a position. */
  private ownResting(symbols: readonly string[]): JournalOrder[] {
    const wanted = new Set(symbols);
    return this.opts.journal
      .activeOrders()
      .filter((r) => wanted.has(r.symbol) && (r.isTrigger ? !r.reduceOnly && r.state === 'untriggered' : r.state === 'open'));
  }

  private async pass(p: Progress): Promise<void> {
    const { journal, clock, mode } = this.opts;
    p.passes++;
    p.failed = false;
    const kind = mode === 'flatten' ? 'flatten' : 'kill-cancel';
    const { spot, futures } = this.opts.symbols;
    try {
      journal.recordIntent(
        KILL_ACTOR,
        kind,
        JSON.stringify({ latch: p.latch.name, reason: p.latch.reason, latchedAtMs: p.latch.atMs, pass: p.passes, spot, futures }),
        clock.now(),
      );
      this.log.warn(
        { latch: p.latch.name, reason: p.latch.reason, pass: p.passes, onKill: mode },
        mode === 'flatten'
          ? 'kill switch: flattening (own spot orders canceled; futures orders and trigger orders canceled, positions closed at market; spot holdings are not sold)'
          : "kill switch: canceling this bot's open orders (stops that protect a position stay)",
      );
      if (mode === 'flatten') {
        for (const symbol of spot) await this.cancelOwn(p, kind, 'spot', symbol);
        for (const symbol of futures) {
          await this.step(p, kind, symbol, 'cancel-orders', 'F28', async () => (await this.opts.client.cancelAllFutures('normal', symbol)).map(itemAnswer));
          await this.step(p, kind, symbol, 'cancel-triggers', 'F28', async () => (await this.opts.client.cancelAllFutures('plan', symbol)).map(itemAnswer));
          // A close that failed shows as a position left at the next reading, which takes another pass; a failed close
          // with nothing left (the venue refusing a close of nothing) is no reason for one.
          await this.step(p, kind, symbol, 'close-positions', 'F27', async () => (await this.opts.client.closePositions(symbol)).map(closeAnswer), false);
        }
      } else {
        for (const symbol of spot) await this.cancelOwn(p, kind, 'spot', symbol);
        for (const symbol of futures) await this.cancelOwn(p, kind, 'futures', symbol);
      }
      await this.opts.afterPass?.().catch((err: unknown) => this.log.warn({ err: String(err) }, 'reconciliation after the kill action failed'));
    } catch (err) {
      p.failed = true;
      throw err;
    } finally {
      // Look again after a delay, whatever happened: what is left (or a step that failed) takes another pass.
      const retry = this.opts.retry ?? { firstMs: 5000, maxMs: 300_000 };
      const end = clock.now();
      p.step = 'verify';
      p.sinceMs = end;
      p.atMs = end + Math.min(retry.maxMs, retry.firstMs * 2 ** (p.passes - 1));
      this.log.info(
        { latch: p.latch.name, pass: p.passes, failed: p.failed },
        p.failed ? 'kill action pass ended with a failed step: retried' : 'kill action pass done: checking what is left',
      );
    }
  }

  /**
   * One venue step on a contract: the answers journaled as a risk decision and logged. A failure takes another pass
   * (`retryFailure`), or is left to what the next reading shows.
   */
  private async step(
    p: Progress,
    kind: string,
    symbol: string,
    step: string,
    endpoint: string,
    run: () => Promise<Answer[]>,
    retryFailure = true,
  ): Promise<void> {
    const reason = `${kind}:${step}`;
    try {
      const answers = await run();
      const failed = answers.filter((a) => !a.ok);
      if (failed.length && retryFailure) p.failed = true;
      this.opts.journal.recordRiskDecision(KILL_ACTOR, kind, reason, JSON.stringify({ symbol, endpoint, answers }), this.opts.clock.now());
      this.log[failed.length ? 'warn' : 'info']({ symbol, step, endpoint, ok: answers.length - failed.length, failed }, `kill action: ${step}`);
    } catch (err) {
      if (retryFailure) p.failed = true;
      const error = err instanceof ExchangeError ? err.summary() : String(err);
      this.opts.journal.recordRiskDecision(KILL_ACTOR, kind, reason, JSON.stringify({ symbol, endpoint, error }), this.opts.clock.now());
      this.log.warn({ symbol, step, endpoint, err: error }, `kill action: ${step} failed: retried next pass`);
    }
  }

  /** This bot's own orders of a symbol, through the executor (journaled there too): plain orders and opening triggers. */
  private async cancelOwn(p: Progress, kind: string, surface: Surface, symbol: string): Promise<void> {
    await this.step(p, kind, symbol, 'cancel-own-orders', surface === 'spot' ? 'S4' : 'F7', async () => {
      const { events } = await this.opts.executor.cancelAllOwn(surface, symbol, false);
      const answers: Answer[] = events.filter((e) => e.type === 'canceled').map((e) => ({ id: e.clientOid, ok: true, orderId: e.orderId }));
      // A trigger that would open a position is canceled by its owner's intent (F9); one that closes stays.
      for (const r of this.ownResting([symbol]).filter((x) => x.isTrigger && x.orderId)) {
        const out = await this.opts.executor.submit({ kind: 'cancel-trigger', strategyId: r.strategyId, symbol, orderId: r.orderId! });
        answers.push({ id: r.clientOid, ok: out.some((e) => e.type === 'canceled'), orderId: r.orderId });
      }
      // Orders still resting after the cancel were not confirmed canceled: the step failed.
      for (const r of this.ownResting([symbol])) {
        if (!answers.some((a) => a.id === r.clientOid)) answers.push({ id: r.clientOid, ok: false, orderId: r.orderId, error: 'still open' });
      }
      return answers;
    });
  }
}
