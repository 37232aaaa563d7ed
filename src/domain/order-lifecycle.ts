// The lifecycle of an order we send: its states, the state sets the executor, the order tracker and the journal
// read, the venue's order status as one of our states, and the one transition function every change of an
// order's state goes through (the executor's answers, the tracker's lookups, an operator's settlement).
import type { OrderStatus } from './order.js';

/** Where an order we sent stands, as far as we know. Final states: rejected, canceled, filled, closed, vanished, not-placed. */
export type OrderState =
  | 'sending' // written down, request not answered yet (a crash here leaves the outcome unknown)
  | 'open'
  | 'untriggered'
  | 'unknown' // sent, no trustworthy answer: resolve by query, never re-send
  | 'canceling'
  | 'rejected'
  | 'canceled'
  | 'filled'
  | 'closed' // gone from the venue's open orders for a reason the venue does not report
  | 'lost' // never found at the venue after the grace window: treated as not placed (not open), still checked
  | 'not-placed' // lost, and still not found after further checks: final, no longer checked
  | 'vanished'; // was open, and the venue has not known it for a bounded time and number of lookups: final

export const ORDER_STATES: readonly OrderState[] = [
  'sending',
  'open',
  'untriggered',
  'unknown',
  'canceling',
  'rejected',
  'canceled',
  'filled',
  'closed',
  'lost',
  'not-placed',
  'vanished',
];

/** Every order is written down in this state before it is sent. */
export const INITIAL_ORDER_STATE: OrderState = 'sending';

export const FINAL_STATES: ReadonlySet<OrderState> = new Set(['rejected', 'canceled', 'filled', 'closed', 'not-placed', 'vanished']);
export const ACTIVE_STATES: ReadonlySet<OrderState> = new Set(['sending', 'open', 'untriggered', 'unknown', 'canceling', 'lost']);
/** Sent without a trustworthy answer: never re-sent, resolved by query; they hold the fence on new orders. */
export const UNANSWERED_STATES: ReadonlySet<OrderState> = new Set(['sending', 'unknown']);
/** Not known to be placed: unanswered, or lost (still looked up). A lookup that finds one resolves it. */
export const UNCONFIRMED_STATES: ReadonlySet<OrderState> = new Set(['sending', 'unknown', 'lost']);
/** Active orders that may rest at the venue: what open-order caps count (lost ones are treated as not placed). */
export const RESTING_STATES: ReadonlySet<OrderState> = new Set(['sending', 'open', 'untriggered', 'unknown', 'canceling']);

/** The venue's status of an order as our state: a pending order, and a status value we do not know, count as open. */
export function stateOfVenueStatus(status: OrderStatus): OrderState {
  switch (status) {
    case 'filled':
      return 'filled';
    case 'canceled':
      return 'canceled';
    case 'untriggered':
      return 'untriggered';
    case 'canceling':
      return 'canceling';
    case 'pending':
    case 'open':
    case 'unknown':
      return 'open';
  }
}

/** What can happen to an order (past tense): each moves it to a next state, or is refused in its current one. */
export type OrderEvent =
  /** The venue took the order; a trigger order then waits for its price. */
  | { type: 'place-accepted'; trigger: boolean }
  | { type: 'place-rejected' }
  /** No trustworthy answer to the placing (timeout, 5xx, unparseable): resolved by query, never re-sent. */
  | { type: 'place-unanswered' }
  | { type: 'cancel-requested' }
  | { type: 'cancel-accepted' }
  /** The venue refused the cancel for what it is (a rate limit, say), not for not knowing the order. */
  | { type: 'cancel-refused' }
  /** The venue did not know the order, or gave no answer: it may have filled or been canceled already. */
  | { type: 'cancel-unconfirmed' }
  /** A lookup or a listing found the order with this status. */
  | { type: 'venue-reported'; status: OrderStatus }
  /** Lookups did not find the order for as long and as often as the tracker's bounds ask. */
  | { type: 'absence-concluded' }
  /** An operator settled an order the venue cannot answer for. */
  | { type: 'operator-settled'; as: 'canceled' | 'filled' | 'vanished' };

export type OrderEventType = OrderEvent['type'];

export type Transition = { ok: true; to: OrderState } | { ok: false; refusal: string };

const to = (state: OrderState): Transition => ({ ok: true, to: state });
const refuse = (from: OrderState, event: OrderEvent, why: string): Transition => ({
  ok: false,
  refusal: `${event.type} does not apply to an order ${from}: ${why}`,
});

/**
 * The next state of an order in state `from` after `event`, or a refusal: the change does not apply, and the
 * caller leaves the state as it is (a final order stays final; an order not known to be placed is settled by a
 * lookup, never by a cancel's answer).
 */
export function transition(from: OrderState, event: OrderEvent): Transition {
  switch (event.type) {
    case 'place-accepted':
    case 'place-rejected':
    case 'place-unanswered':
      if (from !== 'sending') return refuse(from, event, 'only an order being sent is answered for its placing');
      return to(event.type === 'place-rejected' ? 'rejected' : event.type === 'place-unanswered' ? 'unknown' : event.trigger ? 'untriggered' : 'open');
    case 'cancel-requested':
    case 'cancel-unconfirmed':
      if (FINAL_STATES.has(from)) return refuse(from, event, 'it is final');
      if (UNCONFIRMED_STATES.has(from)) return refuse(from, event, 'it is not known to be placed: a lookup settles it');
      return to('canceling');
    case 'cancel-refused':
      if (FINAL_STATES.has(from)) return refuse(from, event, 'it is final');
      if (UNCONFIRMED_STATES.has(from)) return refuse(from, event, 'it is not known to be placed: a lookup settles it');
      // The order is as it was before the cancel: one already being canceled rests again.
      return to(from === 'canceling' ? 'open' : from);
    case 'cancel-accepted':
      // The venue decides: a row the journal concluded too early (even a final one) was resting after all.
      return to('canceled');
    case 'venue-reported': {
      if (FINAL_STATES.has(from)) return refuse(from, event, 'it is final');
      const reported = stateOfVenueStatus(event.status);
      // A cancel in flight: the venue may still list the order as open (or waiting for its trigger) for a while.
      return to(from === 'canceling' && (reported === 'open' || reported === 'untriggered') ? 'canceling' : reported);
    }
    case 'absence-concluded':
      if (FINAL_STATES.has(from)) return refuse(from, event, 'it is final');
      if (UNANSWERED_STATES.has(from)) return to('lost');
      return to(from === 'lost' ? 'not-placed' : 'vanished');
    case 'operator-settled':
      if (FINAL_STATES.has(from)) return refuse(from, event, 'it is final: the venue answered for it');
      return to(event.as);
  }
}

/** The next state where the event must apply (a refusal there is a bug, not a venue's answer): throws otherwise. */
export function mustTransition(from: OrderState, event: OrderEvent): OrderState {
  const next = transition(from, event);
  if (!next.ok) throw new Error(next.refusal);
  return next.to;
}
