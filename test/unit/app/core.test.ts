// The trading core over the in-process simulator: fenced until the first reconciliation (or not, for a backtest),
// reconciliations joined and skipped when idle, keys that do not work keep it fenced, its state, params changed all
// or nothing, the caps counting what the venue listed, and the loop from the streams to the venue.
import { describe, expect, it, jest } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Balance, Position } from '../../../src/domain/market.js';
import type { Order } from '../../../src/domain/order.js';
import { nextTurn } from '../../../src/util/clock.js';
import { LOOSE_LIMITS } from '../../fixtures/bot.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { bidderInstance, priceNear, pushStreams, recordingClient, simCore, simVenue, SPOT, type BidderSink, type SimVenue } from '../../fixtures/sim-core.js';

const d = (s: string) => Decimal.from(s);

/** A place intent of strategy `strategyId`: one limit buy 1 % under the market. */
function bid(venue: SimVenue, strategyId = 'b1') {
  return {
    kind: 'place' as const,
    strategyId,
    surface: 'spot' as const,
    symbol: SPOT,
    orders: [{ side: 'buy' as const, kind: 'limit' as const, timeInForce: 'gtc' as const, price: priceNear(venue, SPOT, '99'), size: d('0.001') }],
  };
}

const types = (events: ExecutionEvent[]) => events.map((e) => (e.type === 'denied' ? `denied:${e.reason}` : e.type));

describe('core: the fence before the first reconciliation', () => {
  it('denies new orders until the first reconciliation, and trades after it', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')] });
    expect(core.executor.fenced).toBe('not reconciled yet');
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['denied:fenced']);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(0);

    await core.reconcile({ scanForeign: true, startup: true });
    expect(core.executor.fenced).toBeNull();
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(1);
  });

  it('a plain reconciliation while fenced is not skipped as idle: it lifts the fence', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')] });
    await core.reconcile();
    expect(core.executor.fenced).toBeNull();
  });

  it('with fencedUntilReconciled false, trades at once', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], fencedUntilReconciled: false });
    expect(core.executor.fenced).toBeNull();
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(1);
  });
});

describe('core: reconciliations', () => {
  it('a reconciliation asked for while one runs joins it', async () => {
    const venue = simVenue();
    const { client, calls } = recordingClient(venue.sim);
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { trading: client } });
    const first = core.reconcile({ scanForeign: true, startup: true });
    const second = core.reconcile({ scanForeign: true });
    expect(second).toBe(first);
    expect(core.busy()).toBe(1);
    await Promise.all([first, second]);
    // One scan of the one spot symbol: the second ask sent nothing of its own.
    expect(calls).toEqual(['openOrders']);
    expect(core.busy()).toBe(0);
    const third = core.reconcile({ scanForeign: true });
    expect(third).not.toBe(first);
    await third;
    expect(calls).toEqual(['openOrders', 'openOrders']);
  });

  it('an idle reconciliation (nothing active, not fenced, no scan) sends no request; one with an order to check does', async () => {
    const venue = simVenue();
    const { client, calls } = recordingClient(venue.sim);
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { trading: client } });
    await core.reconcile({ scanForeign: true, startup: true });
    const afterStartup = calls.length;
    // Skipped as it is asked for: no pass of the tracker, nothing busy (a backtest's quiet test counts it).
    const passes = jest.spyOn(core.tracker, 'reconcile');
    const idle = core.reconcile();
    expect(core.busy()).toBe(0);
    await idle;
    expect(calls).toHaveLength(afterStartup);
    expect(passes).not.toHaveBeenCalled();

    await core.executor.submit(bid(venue));
    const afterPlace = calls.length;
    await core.reconcile();
    expect(calls.length).toBeGreaterThan(afterPlace);
    expect(calls.slice(afterPlace)).toContain('order');
  });

  it('with keys to check: probed once, then an idle reconciliation sends nothing', async () => {
    const venue = simVenue();
    const { client, calls } = recordingClient(venue.sim);
    const probes: Array<ReadonlyArray<string>> = [];
    const keys = {
      authHalt: () => undefined,
      resetAuthHalt: () => undefined,
      probe: async (surfaces: ReadonlyArray<'spot' | 'futures'>) => void probes.push(surfaces),
    };
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { trading: client, keys } });
    await core.reconcile({ scanForeign: true, startup: true });
    expect(probes).toEqual([['spot']]);
    expect(core.executor.fenced).toBeNull();
    const before = calls.length;
    const passes = jest.spyOn(core.tracker, 'reconcile');
    await core.reconcile();
    expect(calls).toHaveLength(before);
    expect(probes).toHaveLength(1);
    expect(passes).not.toHaveBeenCalled();
  });
});

describe('core: keys the venue refuses keep trading fenced', () => {
  it('a probe that throws keeps the fence, with its reason, and sends no reconciliation', async () => {
    const venue = simVenue();
    const { client, calls } = recordingClient(venue.sim);
    const keys = {
      authHalt: () => undefined,
      resetAuthHalt: () => undefined,
      probe: async () => {
        throw new Error('40012 apikey/password is incorrect');
      },
    };
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { trading: client, keys } });
    await core.reconcile({ scanForeign: true, startup: true });
    expect(core.executor.fenced).toBe('no signed request has succeeded yet: 40012 apikey/password is incorrect');
    expect(calls).toEqual([]);
    const events = await core.executor.submit(bid(venue));
    expect(types(events)).toEqual(['denied:fenced']);
    expect(venue.sim.openOrdersNow('spot', SPOT)).toHaveLength(0);
  });

  it('an authentication halt fences with its reason, even after trading started', async () => {
    const venue = simVenue();
    let halt: { reason: string } | undefined;
    const keys = { authHalt: () => halt, resetAuthHalt: () => (halt = undefined), probe: async () => undefined };
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { keys } });
    await core.reconcile({ scanForeign: true, startup: true });
    expect(core.executor.fenced).toBeNull();
    halt = { reason: '3 signed requests refused with 401' };
    await core.reconcile();
    expect(core.executor.fenced).toBe('authentication halted: 3 signed requests refused with 401');
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['denied:fenced']);
  });

  it('clearing the halt probes the keys first: the fence stays while the probe fails, and lifts once it succeeds', async () => {
    const venue = simVenue();
    let halt: { reason: string } | undefined;
    let refused: string | undefined;
    let probes = 0;
    const keys = {
      authHalt: () => halt,
      resetAuthHalt: () => (halt = undefined),
      probe: async () => {
        probes++;
        if (refused) throw new Error(refused);
      },
    };
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { keys } });
    await core.reconcile({ scanForeign: true, startup: true });
    expect(probes).toBe(1);
    // Not halted: nothing to clear, the keys are not probed again.
    expect(await core.clearAuthHalt()).toEqual({ checked: true, cleared: undefined, keysWork: true, fenced: null });
    expect(probes).toBe(1);

    halt = { reason: 'refused 3 times' };
    refused = '40018 Invalid IP request';
    await core.reconcile();
    expect(await core.clearAuthHalt()).toEqual({
      checked: true,
      cleared: 'refused 3 times',
      keysWork: false,
      fenced: 'no signed request has succeeded yet: 40018 Invalid IP request',
    });
    expect(probes).toBe(2);
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['denied:fenced']);

    refused = undefined;
    expect(await core.clearAuthHalt()).toEqual({ checked: true, cleared: undefined, keysWork: true, fenced: null });
    expect(probes).toBe(3);
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
  });

  it('without keys to check there is nothing to clear', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')] });
    await core.reconcile({ scanForeign: true, startup: true });
    expect(await core.clearAuthHalt()).toEqual({ checked: false, cleared: undefined, keysWork: true, fenced: null });
  });
});

describe('core: state()', () => {
  it('holds the strategies, the active orders, the account from the streams, the trading state and the fence', async () => {
    const venue = simVenue();
    const streams = pushStreams();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { streams } });
    core.start();
    const position: Position = {
      symbol: 'cmt_btcusdt',
      side: 'long',
      size: d('2'),
      openValue: d('18'),
      entryPrice: d('90000'),
      leverage: d('20'),
      marginMode: 'crossed',
      isolatedMargin: null,
      openFee: null,
      fundingFee: null,
      updatedAtMs: 1,
    };
    const balance: Balance = { surface: 'spot', asset: 'USDT', available: d('100'), frozen: d('0'), total: d('100') };
    streams.positions$.next({ value: [position], atMs: venue.clock.now() });
    streams.balances$.next({ value: [balance], atMs: venue.clock.now() });
    const state = core.state();
    expect(state.strategies).toEqual([{ id: 'b1', errors: 0, faulted: false }]);
    expect(state.positions).toEqual([position]);
    expect(state.balances).toEqual([balance]);
    expect(state.orders).toEqual([]);
    expect(state.tradingState).toBe('active');
    expect(state.fenced).toBe('not reconciled yet');
    expect(state.pending).toEqual([]);
    core.stopIntake();
  });

  it('holds equity by surface once balances are valued at trusted prices, not before', async () => {
    const venue = simVenue();
    const streams = pushStreams();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { streams } });
    core.start();
    const usdt: Balance = { surface: 'spot', asset: 'USDT', available: d('100'), frozen: d('0'), total: d('100') };
    streams.balances$.next({ value: [usdt], atMs: venue.clock.now() });
    expect(core.state().equity).toBeUndefined();
    streams.tickers$.next({ value: new Map([[SPOT, venue.sim.tickerNow(SPOT)!]]), atMs: venue.clock.now() });
    streams.balances$.next({ value: [usdt], atMs: venue.clock.now() });
    const equity = core.state().equity!;
    expect(equity.bySurface.spot!.toString()).toBe('100');
    expect(equity.atMs).toBe(venue.clock.now());
    core.stopIntake();
  });

  it('while unanswered orders hold the fence, lists them as pending and among the orders', async () => {
    const venue = simVenue();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], tracking: { graceMs: 60_000, lostAfterChecks: 2 } });
    const [clientOid] = core.journal.nextClientOids('b1', 1);
    core.journal.insertOrders([journalRow(clientOid!, { strategyId: 'b1', state: 'unknown', createdAtMs: venue.clock.now(), updatedAtMs: venue.clock.now() })]);
    await core.reconcile({ scanForeign: true, startup: true });
    const state = core.state();
    expect(state.fenced).toMatch(/^1 order\(s\) with an unknown outcome: /);
    expect(state.pending.map((p) => [p.clientOid, p.state])).toEqual([[clientOid, 'unknown']]);
    expect(state.orders.map((r) => r.clientOid)).toEqual([clientOid]);
  });
});

describe('core: updateParams', () => {
  const setup = async () => {
    const venue = simVenue();
    const sink: BidderSink = { markets: 0, params: [] };
    const instances = [bidderInstance('b1'), bidderInstance('b2', { params: { offsetPct: 2 } })];
    const core = await simCore(venue, { instances, sink });
    const paramsNow = () => {
      sink.params.length = 0;
      for (const id of ['b1', 'b2']) core.runner.onSchedule(id, 'probe', venue.clock.now());
      return Object.fromEntries(sink.params.map((p) => [p.id, p.params]));
    };
    return { core, instances, paramsNow };
  };

  it('refuses a changed symbol list, a removed or a new instance, and changes nothing', async () => {
    const { core, instances, paramsNow } = await setup();
    const before = paramsNow();
    expect(core.updateParams([{ ...instances[0]!, symbols: ['ETHUSDT_SPBL'], params: { offsetPct: 3 } }, instances[1]!])).toEqual([
      'strategies[b1]: only params can change without a restart',
    ]);
    expect(core.updateParams([instances[0]!])).toEqual(['strategies[b2]: only params can change without a restart']);
    expect(core.updateParams([...instances, bidderInstance('b3')])).toEqual(['strategies[b3]: adding a strategy needs a restart']);
    expect(paramsNow()).toEqual(before);
  });

  it('refuses bad params, all or nothing, and applies valid ones to every instance', async () => {
    const { core, instances, paramsNow } = await setup();
    expect(paramsNow()).toEqual({ b1: { offsetPct: 1, size: '0.001' }, b2: { offsetPct: 2, size: '0.001' } });
    const problems = core.updateParams([
      { ...instances[0]!, params: { offsetPct: 3 } },
      { ...instances[1]!, params: { offsetPct: 'far' } },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^strategies\[b2\]\.params\.offsetPct: /);
    // b1's valid params were not applied either.
    expect(paramsNow()).toEqual({ b1: { offsetPct: 1, size: '0.001' }, b2: { offsetPct: 2, size: '0.001' } });

    expect(
      core.updateParams([
        { ...instances[0]!, params: { offsetPct: 3 } },
        { ...instances[1]!, params: { offsetPct: 0.5, size: '0.002' } },
      ]),
    ).toEqual([]);
    expect(paramsNow()).toEqual({ b1: { offsetPct: 3, size: '0.001' }, b2: { offsetPct: 0.5, size: '0.002' } });
  });
});

describe('core: capsCountListed', () => {
  const foreign = (venue: SimVenue): Order => ({
    surface: 'spot',
    symbol: SPOT,
    orderId: 'f-1',
    clientOid: 'someone-else-1',
    side: 'buy',
    positionSide: null,
    reduceOnly: false,
    kind: 'limit',
    timeInForce: 'gtc',
    price: priceNear(venue, SPOT, '98'),
    size: d('0.001'),
    filledSize: Decimal.ZERO,
    avgFillPrice: null,
    fee: null,
    status: 'open',
    rawStatus: 'live',
    rawType: 'limit',
    createdAtMs: 0,
    updatedAtMs: 0,
  });
  const limits = { ...LOOSE_LIMITS, maxOpenOrdersPerSymbol: 1 };

  it('a function: the caps count the orders it lists (one foreign order fills a cap of one)', async () => {
    const venue = simVenue();
    let listed: Order[] = [];
    const core = await simCore(venue, { instances: [bidderInstance('b1')], fencedUntilReconciled: false, limits, capsCountListed: () => listed });
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
    // The journal's own resting order alone fills the cap.
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['denied:max-open-orders-symbol']);
    await core.executor.cancelAllOwn('spot', SPOT, false);
    await core.tracker.reconcile();
    expect(core.journal.activeOrders()).toEqual([]);
    listed = [foreign(venue)];
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['denied:max-open-orders-symbol']);
    listed = [];
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
  });

  it('not set: what the venue lists is not counted', async () => {
    const venue = simVenue();
    const streams = pushStreams();
    const core = await simCore(venue, { instances: [bidderInstance('b1')], fencedUntilReconciled: false, limits, bound: { streams }, simPrices: true });
    core.start();
    streams.openOrders$.next({ value: [foreign(venue)], atMs: venue.clock.now() });
    expect(types(await core.executor.submit(bid(venue)))).toEqual(['accepted']);
    core.stopIntake();
  });
});

describe('core: start() and stopIntake()', () => {
  it('a tickers update reaches the strategy and its intent the venue; after stopIntake nothing is delivered', async () => {
    const venue = simVenue();
    const streams = pushStreams();
    const sink: BidderSink = { markets: 0, params: [] };
    const before: number[] = [];
    const intents: string[] = [];
    const core = await simCore(venue, {
      instances: [bidderInstance('b1')],
      sink,
      fencedUntilReconciled: false,
      onIntent: (i) => void intents.push(`${i.strategyId}:${i.kind}`),
      bound: { streams, beforeTickers: (t) => void before.push(t.atMs) },
    });
    core.start();
    const tick = () => streams.tickers$.next({ value: new Map([[SPOT, venue.sim.tickerNow(SPOT)!]]), atMs: venue.clock.now() });
    tick();
    expect(sink.markets).toBe(1);
    expect(before).toEqual([venue.clock.now()]);
    expect(intents).toEqual(['b1:place']);
    while (core.busy() > 0) await nextTurn();
    const rows = core.journal.activeOrders();
    expect(rows.map((r) => [r.strategyId, r.state])).toEqual([['b1', 'open']]);
    expect(venue.sim.openOrdersNow('spot', SPOT).map((o) => o.clientOid)).toEqual([rows[0]!.clientOid]);

    core.stopIntake();
    venue.clock.advance(1000);
    venue.sim.advanceTo(venue.clock.now());
    tick();
    streams.balances$.next({ value: [{ surface: 'spot', asset: 'USDT', available: d('1'), frozen: d('0'), total: d('1') }], atMs: venue.clock.now() });
    expect(sink.markets).toBe(1);
    expect(before).toHaveLength(1);
    expect(core.state().balances).toEqual([]);
  });
});
