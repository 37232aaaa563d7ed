// The order lifecycle: the whole transition table (every state × every event), the venue status map, and the
// state sets the executor, the tracker and the journal read.
import { describe, expect, it } from '@jest/globals';
import {
  ACTIVE_STATES,
  FINAL_STATES,
  INITIAL_ORDER_STATE,
  mustTransition,
  ORDER_STATES,
  RESTING_STATES,
  stateOfVenueStatus,
  transition,
  UNANSWERED_STATES,
  UNCONFIRMED_STATES,
  type OrderEvent,
  type OrderState,
} from '../../../src/domain/order-lifecycle.js';
import type { OrderStatus } from '../../../src/domain/order.js';

const STATUSES: OrderStatus[] = ['pending', 'open', 'filled', 'canceling', 'canceled', 'untriggered', 'unknown'];

/** Every event, each variant of its payload: the columns of the table below, in order. */
const EVENTS: OrderEvent[] = [
  { type: 'place-accepted', trigger: false },
  { type: 'place-accepted', trigger: true },
  { type: 'place-rejected' },
  { type: 'place-unanswered' },
  { type: 'cancel-requested' },
  { type: 'cancel-accepted' },
  { type: 'cancel-refused' },
  { type: 'cancel-unconfirmed' },
  ...STATUSES.map((status): OrderEvent => ({ type: 'venue-reported', status })),
  { type: 'absence-concluded' },
  { type: 'operator-settled', as: 'canceled' },
  { type: 'operator-settled', as: 'filled' },
  { type: 'operator-settled', as: 'vanished' },
];

// The next state per event column above ('-': refused, the state stays as it is). Columns: place accepted (plain,
// trigger), rejected, unanswered; cancel requested, accepted, refused, unconfirmed; venue reported pending, open,
// filled, canceling, canceled, untriggered, unknown; absence concluded; settled as canceled, filled, vanished.
const REPORTED = 'open open filled canceling canceled untriggered open';
const REPORTED_CANCELING = 'canceling canceling filled canceling canceled canceling canceling';
const REFUSED7 = '- - - - - - -';
const SETTLED = 'canceled filled vanished';
const TABLE: Record<OrderState, string> = {
  sending: `open untriggered rejected unknown - canceled - - ${REPORTED} lost ${SETTLED}`,
  open: `- - - - canceling canceled open canceling ${REPORTED} vanished ${SETTLED}`,
  untriggered: `- - - - canceling canceled untriggered canceling ${REPORTED} vanished ${SETTLED}`,
  unknown: `- - - - - canceled - - ${REPORTED} lost ${SETTLED}`,
  canceling: `- - - - canceling canceled open canceling ${REPORTED_CANCELING} vanished ${SETTLED}`,
  lost: `- - - - - canceled - - ${REPORTED} not-placed ${SETTLED}`,
  rejected: `- - - - - canceled - - ${REFUSED7} - - - -`,
  canceled: `- - - - - canceled - - ${REFUSED7} - - - -`,
  filled: `- - - - - canceled - - ${REFUSED7} - - - -`,
  closed: `- - - - - canceled - - ${REFUSED7} - - - -`,
  'not-placed': `- - - - - canceled - - ${REFUSED7} - - - -`,
  vanished: `- - - - - canceled - - ${REFUSED7} - - - -`,
};

const label = (e: OrderEvent) =>
  'status' in e ? `${e.type}:${e.status}` : 'as' in e ? `${e.type}:${e.as}` : 'trigger' in e ? `${e.type}:${e.trigger ? 'trigger' : 'plain'}` : e.type;

describe('order lifecycle: the transition table', () => {
  it('covers every state and every event', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...ORDER_STATES].sort());
    for (const state of ORDER_STATES) expect(TABLE[state].split(' ')).toHaveLength(EVENTS.length);
  });

  for (const from of ORDER_STATES) {
    it(`from ${from}`, () => {
      const expected = TABLE[from].split(' ');
      const got = EVENTS.map((e) => {
        const next = transition(from, e);
        return next.ok ? next.to : '-';
      });
      expect(Object.fromEntries(EVENTS.map((e, i) => [label(e), got[i]]))).toEqual(Object.fromEntries(EVENTS.map((e, i) => [label(e), expected[i]])));
    });
  }

  it('a refusal says which event, from which state, and why', () => {
    expect(transition('filled', { type: 'cancel-requested' })).toEqual({
      ok: false,
      refusal: 'cancel-requested does not apply to an order filled: it is final',
    });
    expect(transition('unknown', { type: 'cancel-unconfirmed' })).toEqual({
      ok: false,
      refusal: 'cancel-unconfirmed does not apply to an order unknown: it is not known to be placed: a lookup settles it',
    });
    expect(transition('open', { type: 'place-accepted', trigger: false })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/only an order being sent/),
    });
    expect(transition('vanished', { type: 'operator-settled', as: 'filled' })).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(/final: the venue answered for it/),
    });
  });

  it('mustTransition gives the next state, and throws on a refusal', () => {
    expect(mustTransition('sending', { type: 'place-accepted', trigger: true })).toBe('untriggered');
    expect(() => mustTransition('canceled', { type: 'place-rejected' })).toThrow(/place-rejected does not apply to an order canceled/);
  });
});

describe('order lifecycle: the venue status map', () => {
  it('maps each venue status to our state: pending and unknown statuses count as open', () => {
    expect(Object.fromEntries(STATUSES.map((s) => [s, stateOfVenueStatus(s)]))).toEqual({
      pending: 'open',
      open: 'open',
      filled: 'filled',
      canceling: 'canceling',
      canceled: 'canceled',
      untriggered: 'untriggered',
      unknown: 'open',
    });
  });
});

describe('order lifecycle: the state sets', () => {
  const sorted = (set: ReadonlySet<OrderState>) => [...set].sort();
  it('every state is active or final, never both; a new order is active and unanswered', () => {
    for (const s of ORDER_STATES) expect(ACTIVE_STATES.has(s) !== FINAL_STATES.has(s)).toBe(true);
    expect(sorted(FINAL_STATES)).toEqual(['canceled', 'closed', 'filled', 'not-placed', 'rejected', 'vanished']);
    expect(INITIAL_ORDER_STATE).toBe('sending');
    expect(UNANSWERED_STATES.has(INITIAL_ORDER_STATE)).toBe(true);
  });

  it('unanswered within unconfirmed within active; resting is active without lost', () => {
    expect(sorted(UNANSWERED_STATES)).toEqual(['sending', 'unknown']);
    expect(sorted(UNCONFIRMED_STATES)).toEqual(['lost', 'sending', 'unknown']);
    expect(sorted(RESTING_STATES)).toEqual(sorted(new Set([...ACTIVE_STATES].filter((s) => s !== 'lost'))));
    for (const s of UNCONFIRMED_STATES) expect(ACTIVE_STATES.has(s)).toBe(true);
  });
});
