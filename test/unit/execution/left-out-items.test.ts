// Spot batch items the venue's answer left out (S6 answers with a resultList of the items it took, and leaves out
// what it refused): each is looked up right after the answer, and concluded as soon as the tracker's evidence
// allows (the grace window, then its lookups spent at once), not one lookup per scheduled reconciliation. Against
// the in-process simulator on a manual clock, behind a client that leaves one item out of the answer.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { OrderSpec } from '../../../src/domain/intent.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { spotPlaceResults } from '../../../src/exchange/live/item-results.js';
import type { Core } from '../../../src/app/core.js';
import { priceNear, recordingClient, simCore, simVenue, SPOT, type SimVenue } from '../../fixtures/sim-core.js';

const d = (s: string) => Decimal.from(s);
/** The daemon's reconciliation schedule (`reconcileCron` default: every 5 s). */
const RECONCILE_EVERY_MS = 5000;

/**
 * The simulator answering S6 as the live client reads the venue's answer (spotPlaceResults): only the items in
 * resultList are accepted, and item `index` is left out of it. `placed`: the venue took that item all the same;
 * otherwise it never placed it (as with an item the venue refused).
 */
function leavingOut(venue: SimVenue, index: number, placed: boolean): { client: ExchangeClient; lookups: (clientOid: string) => number } {
  const looked: string[] = [];
  const inner = venue.sim;
  const { client } = recordingClient(inner, {
    placeOrders: async (surface, symbol, orders) => {
      const sent = placed ? orders : orders.filter((_, i) => i !== index);
      const results = await inner.placeOrders(surface, symbol, sent);
      const resultList = results.flatMap((r) =>
        r.outcome === 'accepted' && r.clientOid !== orders[index]!.clientOid ? [{ orderId: r.orderId, clientOrderId: r.clientOid }] : [],
      );
      return spotPlaceResults({ resultList }, orders);
    },
    order: (surface, symbol, lookup) => {
      if (lookup.clientOid) looked.push(lookup.clientOid);
      return inner.order(surface, symbol, lookup);
    },
  });
  return { client, lookups: (clientOid) => looked.filter((x) => x === clientOid).length };
}

function bids(venue: SimVenue, n: number): OrderSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    side: 'buy',
    kind: 'limit',
    timeInForce: 'gtc',
    price: priceNear(venue, SPOT, String(97 + i)),
    size: d('0.001'),
  }));
}

async function setup(tracking: { graceMs: number; lostAfterChecks: number }, index: number, placed: boolean) {
  const venue = simVenue();
  const fault = leavingOut(venue, index, placed);
  const core = await simCore(venue, { bound: { trading: fault.client }, tracking });
  await core.reconcile({ scanForeign: true, startup: true });
  expect(core.executor.fenced).toBeNull();
  const events: ExecutionEvent[] = [];
  core.executor.events$.subscribe((e) => events.push(e));
  await core.executor.submit({ kind: 'place', strategyId: 'b1', surface: 'spot', symbol: SPOT, orders: bids(venue, 3) });
  const rows = core.journal.allOrders().sort((a, b) => a.clientOid.localeCompare(b.clientOid));
  const leftOut = rows[index]!.clientOid;
  return { venue, core, leftOut, lookups: fault.lookups, typesOf: () => events.flatMap((e) => ('clientOid' in e && e.clientOid === leftOut ? [e.type] : [])) };
}

/** Virtual time from the answer until the order is no longer unanswered, reconciling on the daemon's schedule. */
async function untilConcluded(venue: SimVenue, core: Core, clientOid: string, maxPasses = 20): Promise<number> {
  const t0 = venue.clock.now();
  for (let pass = 0; ; pass++) {
    const state = core.journal.order(clientOid)!.state;
    if (state !== 'unknown' && state !== 'sending') return venue.clock.now() - t0;
    if (pass === maxPasses) throw new Error(`still ${state} after ${maxPasses} reconciliations`);
    venue.clock.advance(RECONCILE_EVERY_MS);
    await core.reconcile();
  }
}

describe('a spot batch item the answer left out', () => {
  it('placed all the same: found right after the answer and resolved open, with the venue id; never lost', async () => {
    const { venue, core, leftOut, typesOf } = await setup({ graceMs: 0, lostAfterChecks: 2 }, 1, true);
    expect(typesOf()).toEqual(['unknown', 'resolved']);
    const resting = venue.sim.openOrdersNow('spot', SPOT).find((o) => o.clientOid === leftOut)!;
    expect(core.journal.order(leftOut)).toMatchObject({ state: 'open', orderId: resting.orderId, absentChecks: 0 });
    // Left to the reconciliations, it was resolved at the first: 5 s.
    expect(await untilConcluded(venue, core, leftOut)).toBe(0);
  });

  it('never placed: lost when the answer comes, after the lookups the bound asks for (grace 0), not final', async () => {
    const { venue, core, leftOut, lookups, typesOf } = await setup({ graceMs: 0, lostAfterChecks: 2 }, 1, false);
    expect(typesOf()).toEqual(['unknown', 'lost']);
    expect(core.journal.order(leftOut)).toMatchObject({ state: 'lost', absentChecks: 2 });
    expect(lookups(leftOut)).toBe(2);
    // The others were answered: accepted, open.
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(2);
    // Left to the reconciliations, one lookup each, it was lost at the second: 10 s.
    expect(await untilConcluded(venue, core, leftOut)).toBe(0);
  });

  it('never placed, with the default bounds (grace 10 s, 3 lookups): lost at the first reconciliation after the grace window', async () => {
    const { venue, core, leftOut, lookups } = await setup({ graceMs: 10_000, lostAfterChecks: 3 }, 0, false);
    // Looked up at once; inside the grace window its absence proves nothing.
    expect(core.journal.order(leftOut)).toMatchObject({ state: 'unknown', absentChecks: 0 });
    expect(lookups(leftOut)).toBe(1);
    // Its three lookups at the pass at 10 s, not one at each of the passes at 10, 15 and 20 s.
    expect(await untilConcluded(venue, core, leftOut)).toBe(10_000);
    expect(core.journal.order(leftOut)).toMatchObject({ state: 'lost', absentChecks: 3 });
  });
});
