// What a control event becomes for notifications: a notice of one topic (fill, rejection, kill-switch …) with the
// line a person reads, or nothing (equity updates, accepted and canceled orders: the daily summary and the
// dashboard show those).
import type { NotifyEvent } from '../../config/schema.js';
import type { ControlEvent } from '../control.js';

/** A message on its way to a channel. `topic` says what it is about; summaries and the daily summary have their own. */
export interface Notice {
  topic: NotifyEvent | 'summary' | 'daily';
  text: string;
  atMs: number;
  /** The strategy it concerns, when one does. */
  strategyId: string | null;
  /** The control event it came from (webhook receivers get its fields). */
  event?: ControlEvent;
}

/** A text field of an event's data, or undefined. */
function textField(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The execution event type an order event carries (`rejected`, `unknown` …), under `type` or `event`. */
function orderEventType(data: Record<string, unknown>): string | undefined {
  return textField(data, 'type') ?? textField(data, 'event');
}

/** The topic of a control event, or null when it is not one that notifications carry. */
export function topicOf(e: ControlEvent): NotifyEvent | null {
  switch (e.kind) {
    case 'fill':
      return 'fill';
    case 'state':
      return 'kill-switch';
    case 'command':
      return 'command';
    case 'equity':
      return null;
    case 'strategy': {
      const what = textField(e.data, 'change') ?? textField(e.data, 'state') ?? textField(e.data, 'type');
      return what === 'faulted' || what === 'fault' ? 'strategy-fault' : 'strategy';
    }
    case 'order':
      switch (orderEventType(e.data)) {
        case 'rejected':
        case 'denied':
          return 'rejection';
        case 'unknown':
        case 'lost':
          return 'unknown-order';
        // Settled by reconciliation: an unknown outcome found, an order the venue no longer knows made final.
        case 'resolved':
        case 'vanished':
          return 'reconciliation';
        default:
          return null;
      }
    default:
      return null;
  }
}

/** How a trading state reads at the head of a notice. */
function stateLabel(data: Record<string, unknown>): string {
  switch (textField(data, 'state')) {
    case 'halted':
      return 'KILL SWITCH: trading halted';
    case 'reducing':
      return 'Trading reducing only';
    case 'active':
      return 'Trading active again';
    default:
      return 'Trading state';
  }
}

const LABELS: Record<Exclude<NotifyEvent, 'kill-switch'>, string> = {
  fill: 'Fill',
  rejection: 'Rejected',
  'strategy-fault': 'Strategy faulted',
  strategy: 'Strategy',
  reconciliation: 'Reconciliation',
  'unknown-order': 'Order outcome unknown',
  command: 'Command',
};

/** The notice of a control event, or null when notifications do not carry it. */
export function noticeOf(e: ControlEvent): Notice | null {
  const topic = topicOf(e);
  if (!topic) return null;
  const label = topic === 'kill-switch' ? stateLabel(e.data) : LABELS[topic];
  // Strategy events name their instance `id`; order and fill events `strategyId`.
  const strategyId = textField(e.data, 'strategyId') ?? (e.kind === 'strategy' ? textField(e.data, 'id') : undefined) ?? null;
  return { topic, text: `${label}: ${e.text}`, atMs: e.atMs, strategyId, event: e };
}
