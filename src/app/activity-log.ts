// The daemon's order activity as log lines: intents, execution events, trading-state changes, and repeated denials
// folded into counts. Folding: a denial is logged in full, and those after it with the same strategy, surface,
// symbol and reason are counted instead, until its run ends. A run of a standing reason (halted, reducing: the
// state, not the order, is refused) ends when the trading state changes; any other run ends 60 s after its
// logged denial, or when an order of that strategy and symbol is accepted. While a standing run is open, the place
// intents of its strategy and symbol are counted too. A summary line (event `denials`: how many denied since the
// previous summary, by reason and by strategy, how many of them not logged one by one) follows when a run ends with
// counts, every 60 s while there are counts, and at close. Every denial is still counted by the metric
// sextant_risk_denials_total.
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import { assertNever } from '../util/assert-never.js';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** How long a run of a reason that is about the order folds its repeats, and how often counts are summed up. */
const DENIAL_FOLD_MS = 60_000;

/**
 * Reasons that refuse whatever the strategy asks, until the trading state changes. Not `fenced`: the fence lifts
 * without a trading-state change (an order's outcome settled), so its run is an order's: 60 s, or an accepted order.
 */
const STANDING_REASONS: ReadonlySet<string> = new Set(['halted', 'reducing']);

/** How many orders an intent names (a strategy is JavaScript: a list may be missing); undefined for cancel-all and protect. */
function orderCount(intent: Intent): number | undefined {
  const len = (xs: unknown) => (Array.isArray(xs) ? xs.length : 0);
  switch (intent.kind) {
    case 'place':
      return len(intent.orders);
    case 'cancel':
      return len(intent.orderIds) + len(intent.clientOids);
    case 'cancel-all':
      return undefined;
    case 'place-trigger':
    case 'cancel-trigger':
      return 1;
    case 'protect':
      return undefined;
    default:
      return assertNever(intent, 'intent');
  }
}

type Denied = Extract<ExecutionEvent, { type: 'denied' }>;
type SummaryCause = 'trading-state' | 'accepted' | 'periodic' | 'close';

/** One run of folded denials: the logged one opened it at `sinceMs`. */
interface Run {
  standing: boolean;
  sinceMs: number;
}

/** The denials since the previous summary line. */
interface Tally {
  sinceMs: number;
  denied: number;
  folded: number;
  intentsFolded: number;
  byReason: Record<string, number>;
  byStrategy: Record<string, number>;
}

const placeKey = (strategy: string, surface: string, symbol: string) => `${strategy}\u0000${surface}\u0000${symbol}`;

export class ActivityLog {
  private readonly log: Logger;
  private readonly runs = new Map<string, Run>();
  private tally: Tally | undefined;
  private timer: ClockTimer | undefined;
  /** The latest event's time: what a count started by an intent (which carries none) is dated, without a clock. */
  private lastAtMs = 0;

  /** Without a clock, counts are summed up only when a run ends and at close. */
  constructor(
    logger: Logger,
    private readonly clock?: Clock,
  ) {
    this.log = logger.child({ component: 'activity' });
  }

  /** An intent as the executor takes it up. */
  readonly intent = (intent: Intent): void => {
    const surface = intent.kind === 'place-trigger' || intent.kind === 'cancel-trigger' || intent.kind === 'protect' ? 'futures' : intent.surface;
    if ((intent.kind === 'place' || intent.kind === 'place-trigger') && this.standingRunOf(placeKey(intent.strategyId, surface, intent.symbol))) {
      this.count().intentsFolded++;
      this.arm();
      return;
    }
    const orders = orderCount(intent);
    this.log.info(
      { event: 'intent', strategy: intent.strategyId, kind: intent.kind, surface, symbol: intent.symbol, ...(orders === undefined ? {} : { orders }) },
      'intent taken up',
    );
  };

  /** An execution event (the executor's and the order tracker's) or a change of the risk gate's trading state. */
  readonly event = (e: ExecutionEvent): void => {
    this.lastAtMs = e.atMs;
    if (e.type === 'trading-state') {
      this.runs.clear();
      this.summarize('trading-state');
      // A halt is worth a look; the way back is news.
      this.log[e.state === 'halted' ? 'warn' : 'info']({ event: e.type, state: e.state, reason: e.reason }, 'trading state changed');
      return;
    }
    const order = { event: e.type, strategy: e.strategyId, surface: e.surface, symbol: e.symbol };
    switch (e.type) {
      case 'accepted':
        this.endOrderRuns(placeKey(e.strategyId, e.surface, e.symbol));
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId, trigger: e.trigger }, 'order accepted');
        return;
      case 'rejected':
        this.log.info({ ...order, clientOid: e.clientOid, code: e.code ?? null, reason: e.reason }, 'order rejected');
        return;
      case 'partially-filled':
      case 'filled':
        this.log.info(
          { ...order, clientOid: e.clientOid, orderId: e.orderId, filledSize: e.filledSize.toString(), avgPrice: e.avgPrice?.toString() ?? null },
          e.type === 'filled' ? 'order filled' : 'order partially filled',
        );
        return;
      case 'canceled':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId }, 'order canceled');
        return;
      case 'triggered':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId }, 'trigger order triggered');
        return;
      case 'denied':
        this.denied(e);
        return;
      // Logged where they are concluded, with their evidence: an unknown outcome by the executor, the others by
      // the order tracker (execution/order-tracker.ts).
      case 'unknown':
      case 'resolved':
      case 'lost':
      case 'vanished':
        return;
      default:
        assertNever(e, 'execution event');
    }
  };

  /** Sums up what is counted and not yet told (the daemon's stop, after its last events). */
  close(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.summarize('close');
    this.runs.clear();
  }

  private denied(e: Denied): void {
    const key = `${placeKey(e.strategyId, e.surface, e.symbol)}\u0000${e.reason}`;
    const run = this.runs.get(key);
    const open = run !== undefined && (run.standing || e.atMs - run.sinceMs < DENIAL_FOLD_MS);
    const tally = this.count(e.atMs);
    tally.denied++;
    tally.byReason[e.reason] = (tally.byReason[e.reason] ?? 0) + 1;
    tally.byStrategy[e.strategyId] = (tally.byStrategy[e.strategyId] ?? 0) + 1;
    if (open) {
      tally.folded++;
      this.arm();
      return;
    }
    const standing = STANDING_REASONS.has(e.reason);
    this.runs.set(key, { standing, sinceMs: e.atMs });
    const repeats = standing ? 'counted until the trading state changes' : `counted for ${DENIAL_FOLD_MS / 1000} s`;
    this.log.info({ event: e.type, strategy: e.strategyId, surface: e.surface, symbol: e.symbol, reason: e.reason, detail: e.detail, repeats }, 'order denied');
  }

  /** Whether a standing run is open for this strategy, surface and symbol (its place intents are then counted). */
  private standingRunOf(place: string): boolean {
    for (const [key, run] of this.runs) if (run.standing && key.startsWith(`${place}\u0000`)) return true;
    return false;
  }

  /** An order of the strategy and symbol got through: its runs about the order end (standing ones hold on). */
  private endOrderRuns(place: string): void {
    let ended = false;
    for (const [key, run] of this.runs) {
      if (run.standing || !key.startsWith(`${place}\u0000`)) continue;
      this.runs.delete(key);
      ended = true;
    }
    if (ended) this.summarize('accepted');
  }

  private count(atMs?: number): Tally {
    this.tally ??= { sinceMs: atMs ?? this.clock?.now() ?? this.lastAtMs, denied: 0, folded: 0, intentsFolded: 0, byReason: {}, byStrategy: {} };
    return this.tally;
  }

  /** The periodic summary, once counts are waiting: one timer at a time, none while nothing is folded. */
  private arm(): void {
    if (this.timer || !this.clock) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      const now = this.clock!.now();
      for (const [key, run] of this.runs) if (!run.standing && now - run.sinceMs >= DENIAL_FOLD_MS) this.runs.delete(key);
      this.summarize('periodic');
    }, DENIAL_FOLD_MS);
  }

  /** One line for the counts since the previous one, when any were not logged one by one. */
  private summarize(cause: SummaryCause): void {
    const tally = this.tally;
    if (!tally || (tally.folded === 0 && tally.intentsFolded === 0)) return;
    this.tally = undefined;
    const { sinceMs, denied, folded, intentsFolded, byReason, byStrategy } = tally;
    this.log.info(
      { event: 'denials', cause, sinceMs, denied, folded, ...(intentsFolded ? { intentsFolded } : {}), byReason, byStrategy },
      'orders denied since the previous summary',
    );
  }
}
