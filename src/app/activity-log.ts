// The daemon's order activity as log lines, one per intent, execution event and trading-state change.
import type { ExecutionEvent } from '../domain/events.js';
import type { Intent } from '../domain/intent.js';
import { assertNever } from '../util/assert-never.js';
import type { Logger } from '../util/logger.js';

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

export class ActivityLog {
  private readonly log: Logger;

  constructor(logger: Logger) {
    this.log = logger.child({ component: 'activity' });
  }

  /** An intent as the executor takes it up. */
  readonly intent = (intent: Intent): void => {
    const surface = intent.kind === 'place-trigger' || intent.kind === 'cancel-trigger' || intent.kind === 'protect' ? 'futures' : intent.surface;
    const orders = orderCount(intent);
    this.log.info({ event: 'intent', strategy: intent.strategyId, kind: intent.kind, surface, symbol: intent.symbol, ...(orders === undefined ? {} : { orders }) }, 'intent taken up');
  };

  /** An execution event (the executor's and the order tracker's) or a change of the risk gate's trading state. */
  readonly event = (e: ExecutionEvent): void => {
    if (e.type === 'trading-state') {
      // A halt is worth a look; the way back is news.
      this.log[e.state === 'halted' ? 'warn' : 'info']({ event: e.type, state: e.state, reason: e.reason }, 'trading state changed');
      return;
    }
    const order = { event: e.type, strategy: e.strategyId, surface: e.surface, symbol: e.symbol };
    switch (e.type) {
      case 'accepted':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId, trigger: e.trigger }, 'order accepted');
        return;
      case 'rejected':
        this.log.info({ ...order, clientOid: e.clientOid, code: e.code ?? null, reason: e.reason }, 'order rejected');
        return;
      case 'partially-filled':
      case 'filled':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId, filledSize: e.filledSize.toString(), avgPrice: e.avgPrice?.toString() ?? null }, e.type === 'filled' ? 'order filled' : 'order partially filled');
        return;
      case 'canceled':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId }, 'order canceled');
        return;
      case 'triggered':
        this.log.info({ ...order, clientOid: e.clientOid, orderId: e.orderId }, 'trigger order triggered');
        return;
      case 'denied':
        this.log.info({ ...order, reason: e.reason, detail: e.detail }, 'order denied');
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
}
