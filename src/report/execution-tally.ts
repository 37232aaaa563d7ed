// What a run's execution events say for the report: the venue's refusals by strategy and reason, the denials by
// reason, and whose each venue order is (its fills' owner) while the order may still fill. Counts, not lists: a run
// keeps no more than its strategies, reasons and live orders.
import type { ExecutionEvent } from '../domain/events.js';
import { rejectionReason, sortedCounts } from './rejections.js';

export class ExecutionTally {
  /** Refusals per strategy, by reason. */
  private readonly refusals = new Map<string, Map<string, number>>();
  private readonly denials = new Map<string, number>();
  private readonly owners = new Map<string, string>();

  readonly observe = (e: ExecutionEvent): void => {
    switch (e.type) {
      case 'accepted':
      case 'resolved':
        this.owners.set(e.orderId, e.strategyId);
        return;
      // Final at the venue: the order fills no more (its owner is in the journal if ever asked again).
      case 'filled':
      case 'canceled':
        this.owners.delete(e.orderId);
        return;
      case 'rejected': {
        let counts = this.refusals.get(e.strategyId);
        if (!counts) this.refusals.set(e.strategyId, (counts = new Map<string, number>()));
        const reason = rejectionReason(e.code, e.reason);
        counts.set(reason, (counts.get(reason) ?? 0) + 1);
        return;
      }
      case 'denied':
        this.denials.set(e.reason, (this.denials.get(e.reason) ?? 0) + 1);
        return;
      default:
        return;
    }
  };

  /** The strategy that placed a venue order, when an event named it and the order was not final yet. */
  ownerOf(orderId: string): string | undefined {
    return this.owners.get(orderId);
  }

  /** Refusals by reason: all of them, or one strategy's. */
  rejected(strategy?: string): Record<string, number> {
    if (strategy !== undefined) return sortedCounts(this.refusals.get(strategy) ?? new Map());
    const all = new Map<string, number>();
    for (const counts of this.refusals.values()) for (const [reason, n] of counts) all.set(reason, (all.get(reason) ?? 0) + n);
    return sortedCounts(all);
  }

  denied(): Record<string, number> {
    return sortedCounts(this.denials);
  }
}
