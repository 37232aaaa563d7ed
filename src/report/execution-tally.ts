// What a run's execution events say for the report: the venue's refusals by strategy and reason, the denials by
// reason, and whose each venue order is (its fills' owner).
import type { ExecutionEvent } from '../domain/events.js';
import { countByReason, rejectionReason } from './rejections.js';

export class ExecutionTally {
  private readonly refusals: Array<{ strategy: string; reason: string }> = [];
  private readonly denials: string[] = [];
  private readonly owners = new Map<string, string>();

  readonly observe = (e: ExecutionEvent): void => {
    if (e.type === 'accepted' || e.type === 'resolved') this.owners.set(e.orderId, e.strategyId);
    else if (e.type === 'rejected') this.refusals.push({ strategy: e.strategyId, reason: rejectionReason(e.code, e.reason) });
    else if (e.type === 'denied') this.denials.push(e.reason);
  };

  /** The strategy that placed a venue order, when an event named it. */
  ownerOf(orderId: string): string | undefined {
    return this.owners.get(orderId);
  }

  /** Refusals by reason: all of them, or one strategy's. */
  rejected(strategy?: string): Record<string, number> {
    return countByReason(this.refusals.filter((r) => strategy === undefined || r.strategy === strategy).map((r) => r.reason));
  }

  denied(): Record<string, number> {
    return countByReason(this.denials);
  }
}
