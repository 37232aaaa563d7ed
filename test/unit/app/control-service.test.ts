// The daemon's Control over a core on the in-process simulator (manual clock): events from the executor, the trading
// state and the strategies, equity at most every 30 s, a bounded ring, a failing listener dropped; pause stops a
// strategy's hooks and cancels its orders; every command journaled with who, why, what and how it ended; halt,
// reduce and reset through the risk gate.
import { describe, expect, it } from '@jest/globals';
import { ControlService, EQUITY_EVENT_GAP_MS, EVENT_RING_SIZE } from '../../../src/app/control-service.js';
import type { Core } from '../../../src/app/core.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Actor, ControlEvent } from '../../../src/ops/control.js';
import { nextTurn } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { bidderInstance, pushAccount, pushStreams, simCore, simVenue, SPOT, type BidderSink } from '../../fixtures/sim-core.js';

const ACTOR: Actor = { via: 'api', who: 'token' };

async function setup() {
  const venue = simVenue();
  const streams = pushStreams();
  const sink: BidderSink = { markets: 0, params: [] };
  const core = await simCore(venue, { instances: [bidderInstance('b1')], bound: { streams }, sink, simPrices: true });
  const reloads: string[][] = [[]];
  const service = new ControlService({
    core,
    clock: venue.clock,
    logger: silentLogger,
    mode: 'live',
    lastPolled: new Map([['tickers', venue.clock.now()]]),
    limiter: { stats: async () => [{ pool: 'spot:ip', reservoir: 480, queued: 2 }] },
    reload: async () => reloads.shift() ?? ['strategies[b1].params.offsetPct: Too big'],
    flatten: async (latch) => (latch(), 'flattened'),
  });
  await core.reconcile({ scanForeign: true, startup: true });
  core.start();
  const tick = async () => {
    pushAccount(streams, venue);
    streams.tickers$.next({ value: new Map([[SPOT, venue.sim.tickerNow(SPOT)!]]), atMs: venue.clock.now() });
    // The intent the tick made is sent in a promise continuation.
    for (let i = 0; i < 5 || core.busy() > 0; i++) await nextTurn();
  };
  return { venue, core, service, sink, tick };
}

const kinds = (events: ControlEvent[]) => events.map((e) => e.kind);
const commands = (core: Core) =>
  core.journal
    .commands()
    .map((c) => ({ command: c.command, via: c.via, who: c.who, reason: c.reason, args: JSON.parse(c.args) as unknown, ok: c.outcome?.ok }));

describe('the Control of the daemon', () => {
  it('builds its events from the executor and the strategies, and answers reads from the core and the journal', async () => {
    const { core, service, tick, venue } = await setup();
    const seen: ControlEvent[] = [];
    service.onEvent((e) => seen.push(e));
    await tick();
    expect(seen).toEqual([
      expect.objectContaining({
        kind: 'order',
        text: expect.stringMatching(/^b1 BTCUSDT_SPBL: sx_b1_1 accepted as \d+$/),
        data: expect.objectContaining({ type: 'accepted', strategyId: 'b1' }),
      }),
    ]);
    expect(service.recentEvents()).toEqual(seen);
    const [open] = service.orders({ scope: 'open' });
    expect(open).toMatchObject({ clientOid: 'sx_b1_1', strategyId: 'b1', kind: 'limit', state: 'open', size: '0.001' });
    expect(service.orders({ scope: 'recent', strategyId: 'nobody' })).toEqual([]);
    expect(service.order('sx_b1_1')!.history.map((h) => h.event)).toEqual(['written', 'accepted']);
    expect(service.strategies()).toEqual([
      {
        id: 'b1',
        name: 'bidder',
        symbols: [SPOT],
        params: { offsetPct: 1 },
        state: 'running',
        errors: 0,
        lastError: null,
        pnl: { realized: '0', fees: '0', fills: 0 },
        openOrders: 1,
        positions: [],
      },
    ]);
    await service.refresh();
    venue.clock.advance(1500);
    expect(service.status()).toMatchObject({
      mode: 'live',
      tradingState: 'active',
      latches: [],
      fenced: null,
      budget: [{ pool: 'spot:ip', available: 480, queued: 2 }],
      polls: [
        { poll: 'tickers', ageMs: 1500 },
        { poll: 'orders', ageMs: null },
        { poll: 'balances', ageMs: null },
      ],
      reconciliation: { unresolved: 0 },
    });
    core.stopIntake();
    service.stop();
  });

  it('pauses a strategy (no hook called, its order canceled) and resumes it; each command journaled with its outcome', async () => {
    const { core, service, sink, tick } = await setup();
    await tick();
    const paused = await service.pause('b1', { cancelOrders: true, reason: 'check' }, ACTOR);
    expect(paused).toEqual({ ok: true, detail: 'b1 paused: no new intents; 1 order(s) canceled' });
    expect(service.strategies()[0]).toMatchObject({ state: 'paused', openOrders: 0 });
    const calls = sink.markets;
    await tick();
    expect(sink.markets).toBe(calls);
    expect(await service.resume('b1', { via: 'cli', who: 'loopback' })).toEqual({ ok: true, detail: 'b1 resumed' });
    await tick();
    expect(sink.markets).toBe(calls + 1);
    expect(await service.pause('nope', { cancelOrders: false }, ACTOR)).toEqual({ ok: false, status: 404, error: 'no strategy nope' });
    expect(commands(core)).toEqual([
      { command: 'pause', via: 'api', who: 'token', reason: 'check', args: { id: 'b1', cancelOrders: true }, ok: true },
      { command: 'resume', via: 'cli', who: 'loopback', reason: null, args: { id: 'b1' }, ok: true },
      { command: 'pause', via: 'api', who: 'token', reason: null, args: { id: 'nope', cancelOrders: false }, ok: false },
    ]);
    const told = service
      .recentEvents()
      .filter((e) => e.kind === 'strategy' || e.kind === 'command')
      .map((e) => e.text);
    expect(told).toEqual([
      'b1 paused',
      'pause b1 by api/token: b1 paused: no new intents; 1 order(s) canceled',
      'b1 resumed',
      'resume b1 by cli/loopback: b1 resumed',
      'pause nope by api/token: refused: no strategy nope',
    ]);
    core.stopIntake();
  });

  it('halts, reduces and resets through the risk gate; a reset needs a reason; flatten and reload say what they did', async () => {
    const { core, service } = await setup();
    expect(await service.halt('venue incident', ACTOR)).toEqual({
      ok: true,
      detail: 'halted: kill-switch:operator: venue incident (the kill action of risk.onKill follows)',
    });
    expect(core.risk.state()).toBe('halted');
    expect(service.status().latches).toEqual([{ name: 'kill-switch:operator', reason: 'venue incident', atMs: expect.any(Number) }]);
    expect(await service.reduce('  wind down ', ACTOR)).toEqual({ ok: true, detail: 'reducing: reduce:operator: wind down' });
    expect(await service.reset(' ', ACTOR)).toEqual({ ok: false, status: 400, error: 'a reset needs a reason: it is journaled' });
    expect(core.risk.state()).toBe('halted');
    expect(await service.reset('all clear', ACTOR)).toEqual({ ok: true, detail: 'cleared: kill-switch:operator: venue incident; reduce:operator: wind down' });
    expect(core.risk.state()).toBe('active');
    expect(await service.halt('', ACTOR)).toMatchObject({ ok: false, status: 400 });
    expect(await service.flatten('end', ACTOR)).toEqual({ ok: true, detail: 'halted and flattening: flattened' });
    expect(core.risk.latchReason()).toBe('kill-switch:operator: end');
    expect(await service.reload(ACTOR)).toEqual({ ok: true, detail: 'strategy params reloaded' });
    expect(await service.reload(ACTOR, 'again')).toEqual({
      ok: false,
      status: 409,
      error: 'config reload refused, the running config stays: strategies[b1].params.offsetPct: Too big',
    });
    expect(commands(core).map((c) => [c.command, c.ok])).toEqual([
      ['halt', true],
      ['reduce', true],
      ['reset', false],
      ['reset', true],
      ['halt', false],
      ['flatten', true],
      ['reload', true],
      ['reload', false],
    ]);
    expect(kinds(service.recentEvents()).filter((k) => k === 'state').length).toBeGreaterThanOrEqual(4);
    core.stopIntake();
  });

  it('tells equity when it changed, at most every 30 s; keeps the latest 500 events; drops a listener that throws', async () => {
    const { core, service, venue } = await setup();
    let calls = 0;
    service.onEvent(() => {
      calls++;
      throw new Error('broken listener');
    });
    const kept: ControlEvent[] = [];
    service.onEvent((e) => kept.push(e));
    const t0 = venue.clock.now();
    service.equityChanged({ spot: Decimal.from('100.5') }, t0);
    service.equityChanged({ spot: Decimal.from('101') }, t0 + EQUITY_EVENT_GAP_MS - 1);
    service.equityChanged({ spot: Decimal.from('100.5') }, t0 + EQUITY_EVENT_GAP_MS * 2);
    service.equityChanged({ spot: Decimal.from('102') }, t0 + EQUITY_EVENT_GAP_MS * 3);
    expect(kept.map((e) => e.text)).toEqual(['equity spot 100.5', 'equity spot 102']);
    expect(kept[0]!.data).toEqual({ bySurface: { spot: '100.5' } });
    expect(calls).toBe(1);
    for (let i = 0; i < EVENT_RING_SIZE + 20; i++) service.equityChanged({ spot: Decimal.fromInt(i) }, t0 + EQUITY_EVENT_GAP_MS * (4 + i));
    expect(service.recentEvents(1000)).toHaveLength(EVENT_RING_SIZE);
    expect(service.recentEvents(2).map((e) => e.text)).toEqual([`equity spot ${EVENT_RING_SIZE + 18}`, `equity spot ${EVENT_RING_SIZE + 19}`]);
    core.stopIntake();
  });
});
