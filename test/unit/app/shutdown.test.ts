// A clean stop of the core: the strategies' own resting orders cancelled (or left, and said), foreign orders left
// alone, and the writes in flight waited for within the time budget only.
import { describe, expect, it } from '@jest/globals';
import type { Core } from '../../../src/app/core.js';
import { shutdownCore, type ShutdownSettings } from '../../../src/app/shutdown.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ItemResult } from '../../../src/exchange/client.js';
import { createLogger } from '../../../src/util/logger.js';
import { bidderInstance, priceNear, pushStreams, recordingClient, simCore, simVenue, SPOT, type BidderSink, type SimVenue } from '../../fixtures/sim-core.js';

/** A logger whose lines the test reads back (parsed). */
function recorder() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'info', base: {}, destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { logger, lines, named: (msg: string) => lines.filter((l) => l.msg === msg) };
}

const SETTINGS: ShutdownSettings = { timeoutMs: 10_000, cancelOpenOrders: true, cancelTriggers: true };

async function placeBids(core: Core, venue: SimVenue, strategyId: string, pcts: string[]): Promise<void> {
  const orders = pcts.map((pct) => ({
    side: 'buy' as const,
    kind: 'limit' as const,
    timeInForce: 'gtc' as const,
    price: priceNear(venue, SPOT, pct),
    size: Decimal.from('0.001'),
  }));
  const events = await core.executor.submit({ kind: 'place', strategyId, surface: 'spot', symbol: SPOT, orders });
  expect(events.map((e) => e.type)).toEqual(pcts.map(() => 'accepted'));
}

/** An order someone else placed at the venue, on the strategy's symbol. */
async function placeForeign(venue: SimVenue): Promise<void> {
  const [r] = await venue.sim.placeOrders('spot', SPOT, [
    { clientOid: 'manual1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: priceNear(venue, SPOT, '97'), size: Decimal.from('0.001') },
  ]);
  expect(r!.outcome).toBe('accepted');
}

describe('shutdownCore: orders at the venue', () => {
  it("with cancelOpenOrders, cancels the strategies' own resting orders at the venue; none is active after; a foreign one stays", async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1'), bidderInstance('b2')], fencedUntilReconciled: false });
    await placeBids(core, venue, 'b1', ['99', '98.5']);
    await placeBids(core, venue, 'b2', ['98']);
    await placeForeign(venue);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(4);
    const rec = recorder();

    const drained = await shutdownCore(core, SETTINGS, venue.clock, rec.logger, venue.clock.now());

    expect(drained).toBe(true);
    expect(venue.sim.openOrdersNow('spot', SPOT).map((o) => o.clientOid)).toEqual(['manual1']);
    expect(core.journal.activeOrders()).toEqual([]);
    expect(core.journal.allOrders().map((r) => r.state)).toEqual(['canceled', 'canceled', 'canceled']);
    expect(rec.named('open orders canceled on shutdown').map((l) => [l.symbol, l.canceled])).toEqual([[SPOT, 3]]);
    expect(rec.named('orders left at the venue')).toEqual([]);
  });

  it('a cancel that finds the order filled meanwhile: one last reconciliation settles it', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], fencedUntilReconciled: false });
    // Above the ask: it fills at once, while the journal holds it open (as placed) until it is looked up.
    await placeBids(core, venue, 'b1', ['101']);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toEqual([]);
    expect(core.journal.activeOrders().map((r) => r.state)).toEqual(['open']);

    expect(await shutdownCore(core, SETTINGS, venue.clock, recorder().logger, venue.clock.now())).toBe(true);

    expect(core.journal.activeOrders()).toEqual([]);
    expect(core.journal.allOrders().map((r) => [r.state, r.filledSize])).toEqual([['filled', '0.001']]);
  });

  it('without cancelOpenOrders, the orders stay and the log lists them', async () => {
    const venue = simVenue();
    const { client, calls } = recordingClient(venue.sim);
    const core = await simCore(venue, { instances: [bidderInstance('b1')], fencedUntilReconciled: false, bound: { trading: client } });
    await placeBids(core, venue, 'b1', ['99', '98']);
    const rows = core.journal.activeOrders();
    const sent = calls.length;
    const rec = recorder();

    const drained = await shutdownCore(core, { ...SETTINGS, cancelOpenOrders: false }, venue.clock, rec.logger, venue.clock.now());

    expect(drained).toBe(true);
    expect(calls).toHaveLength(sent);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(2);
    expect(core.journal.activeOrders()).toHaveLength(2);
    const [left, ...more] = rec.named('orders left at the venue');
    expect(more).toEqual([]);
    expect(left!.open).toEqual(rows.map((r) => ({ clientOid: r.clientOid, symbol: SPOT, side: 'buy', price: r.price, state: 'open' })));
    expect(left!.triggers).toEqual([]);
    expect(left).not.toHaveProperty('kept');
  });
});

describe('shutdownCore: trigger orders', () => {
  const FUT = 'cmt_btcusdt';
  async function withTrigger() {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('t1', { symbols: [FUT] })], fencedUntilReconciled: false });
    const events = await core.executor.submit({
      kind: 'place-trigger',
      strategyId: 't1',
      symbol: FUT,
      positionSide: 'long',
      reduceOnly: false,
      size: Decimal.from('0.01'),
      triggerPrice: priceNear(venue, FUT, '98'),
    });
    expect(events.map((e) => e.type)).toEqual(['accepted']);
    return { venue, core };
  }

  it('cancelTriggers false: the trigger stays, and the log says it is kept by choice', async () => {
    const { venue, core } = await withTrigger();
    const rec = recorder();
    await shutdownCore(core, { ...SETTINGS, cancelTriggers: false }, venue.clock, rec.logger, venue.clock.now());
    const [row] = core.journal.activeOrders();
    expect(row).toMatchObject({ isTrigger: true, state: 'untriggered' });
    expect(rec.named('open orders canceled on shutdown').map((l) => [l.canceled, l.triggersKept])).toEqual([[0, 1]]);
    const [left] = rec.named('orders left at the venue');
    expect(left!.open).toEqual([]);
    expect(left!.triggers).toEqual([
      { clientOid: row!.clientOid, symbol: FUT, side: 'buy', price: row!.price, state: 'untriggered', triggerPrice: row!.triggerPrice },
    ]);
    expect(left!.kept).toMatch(/cancelTriggers: false/);
  });

  it('cancelTriggers true: the trigger is cancelled too', async () => {
    const { venue, core } = await withTrigger();
    const rec = recorder();
    await shutdownCore(core, SETTINGS, venue.clock, rec.logger, venue.clock.now());
    expect(core.journal.activeOrders()).toEqual([]);
    expect(rec.named('orders left at the venue')).toEqual([]);
  });
});

describe('shutdownCore: writes in flight', () => {
  /** A core whose placing answers only when the test says (or never), with one write in flight. */
  async function oneWriteInFlight() {
    const venue = simVenue();
    const streams = pushStreams();
    let answer: ((results: ItemResult[]) => void) | undefined;
    const { client } = recordingClient(venue.sim, {
      placeOrders: (_surface, _symbol, orders) =>
        new Promise<ItemResult[]>((resolve) => (answer = resolve)).then(() =>
          orders.map((o, i) => ({ outcome: 'accepted' as const, clientOid: o.clientOid, orderId: `v${i}` })),
        ),
    });
    const sink: BidderSink = { markets: 0, params: [] };
    const core = await simCore(venue, { instances: [bidderInstance('b1')], sink, fencedUntilReconciled: false, bound: { trading: client, streams } });
    core.start();
    const tick = () => streams.tickers$.next({ value: new Map([[SPOT, venue.sim.tickerNow(SPOT)!]]), atMs: venue.clock.now() });
    tick();
    expect(core.inFlight.size).toBe(1);
    return { venue, core, sink, tick, answer: () => answer!([]) };
  }

  it('a write that never settles: resolves false once the budget (timeout less 1.5 s) is spent, not before', async () => {
    const { venue, core } = await oneWriteInFlight();
    const rec = recorder();
    let result: boolean | undefined;
    const stopping = shutdownCore(core, { ...SETTINGS, timeoutMs: 5000, cancelOpenOrders: false }, venue.clock, rec.logger, venue.clock.now()).then(
      (r) => (result = r),
    );
    venue.clock.advance(3499);
    for (let k = 0; k < 20; k++) await Promise.resolve();
    expect(result).toBeUndefined();
    venue.clock.advance(1);
    await stopping;
    expect(result).toBe(false);
    // The unanswered order is what is left.
    expect(rec.named('orders left at the venue')[0]!.open).toEqual([expect.objectContaining({ symbol: SPOT, state: 'sending' })]);
  });

  it('the budget counts from when the stop started', async () => {
    const { venue, core } = await oneWriteInFlight();
    const startedAtMs = venue.clock.now();
    venue.clock.advance(3000);
    let result: boolean | undefined;
    const stopping = shutdownCore(core, { ...SETTINGS, timeoutMs: 5000, cancelOpenOrders: false }, venue.clock, recorder().logger, startedAtMs).then(
      (r) => (result = r),
    );
    venue.clock.advance(499);
    for (let k = 0; k < 20; k++) await Promise.resolve();
    expect(result).toBeUndefined();
    venue.clock.advance(1);
    await stopping;
    expect(result).toBe(false);
  });

  it('a write that drains within the budget: resolves true as soon as it settles, without time passing', async () => {
    const { venue, core, sink, tick, answer } = await oneWriteInFlight();
    const at = venue.clock.now();
    let result: boolean | undefined;
    const stopping = shutdownCore(core, { ...SETTINGS, cancelOpenOrders: false }, venue.clock, recorder().logger, at).then((r) => (result = r));
    for (let k = 0; k < 20; k++) await Promise.resolve();
    expect(result).toBeUndefined();
    // Intake is closed: a market update no longer reaches the strategy.
    tick();
    expect(sink.markets).toBe(1);
    answer();
    await stopping;
    expect(result).toBe(true);
    expect(venue.clock.now()).toBe(at);
    expect(core.inFlight.size).toBe(0);
  });
});
