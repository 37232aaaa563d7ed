// The daemon's force exit over a core on the in-process simulator (manual clock): a strategy's futures position and
// its spot inventory are closed at market as its own orders (client ids of the strategy, journaled before the send,
// filled at the venue), the strategy paused first and left paused, its resting orders on the symbol canceled; an
// unknown strategy or symbol is 404, nothing to close is 409 and changes nothing; an order of the strategy there not
// settled, or a halted gate, keeps the close from being sent.
// Also what was realised by window and by symbol from the journal's fills, and the chat's /profit and /performance
// over that real Control.
import { describe, expect, it } from '@jest/globals';
import { ControlService } from '../../../src/app/control-service.js';
import type { Core } from '../../../src/app/core.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { ExchangeError } from '../../../src/exchange/errors.js';
import type { JournalOrder } from '../../../src/journal/journal.js';
import type { Actor } from '../../../src/ops/control.js';
import { ChatCommands } from '../../../src/ops/notify/chat-commands.js';
import { defineStrategy, roundPrice, z, type StrategyDefinition } from '../../../src/strategy/api.js';
import { nextTurn } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { bidder, pushAccount, pushStreams, recordingClient, simCore, simVenue, SPOT } from '../../fixtures/sim-core.js';

const FUT = 'cmt_btcusdt';
const ACTOR: Actor = { via: 'telegram', who: '1001' };

/** What the opener's hooks were called: market updates taken. */
const calls = { markets: 0 };

/**
 * Opens once, on its first price: a market buy of `size` (a futures long, or spot inventory) and a limit buy 2 %
 * below the market that rests; on futures with `stop`, a reduce-only trigger 3 % below that would close the long.
 */
const opener = defineStrategy({
  name: 'opener',
  params: z.object({ size: z.string(), stop: z.boolean().default(false) }),
  onMarket: (ctx, update) => {
    calls.markets++;
    const symbol = ctx.symbols[0]!;
    const last = update.tickers.get(symbol)?.last;
    if (ctx.state.opened || !last) return;
    ctx.state.opened = true;
    const inst = ctx.instruments.get(symbol)!;
    const futures = inst.surface === 'futures';
    const size = Decimal.from(ctx.params.size);
    const below = roundPrice(last.mul(Decimal.from('0.98')), inst, 'down');
    const stop =
      futures && ctx.params.stop
        ? [
            {
              kind: 'place-trigger' as const,
              symbol,
              positionSide: 'long' as const,
              reduceOnly: true,
              size,
              triggerPrice: roundPrice(last.mul(Decimal.from('0.97')), inst, 'down'),
            },
          ]
        : [];
    return [
      {
        kind: 'place',
        surface: inst.surface,
        symbol,
        orders: [
          { side: 'buy', kind: 'market', timeInForce: 'ioc', size, ...(futures ? { positionSide: 'long' as const } : {}) },
          { side: 'buy', kind: 'limit', timeInForce: 'gtc', price: below, size: inst.minSize, ...(futures ? { positionSide: 'long' as const } : {}) },
        ],
      },
      ...stop,
    ];
  },
}) as unknown as StrategyDefinition<unknown>;

async function setup(overrides: Partial<ExchangeClient> = {}) {
  const venue = simVenue();
  const streams = pushStreams();
  const core = await simCore(venue, {
    ...(Object.keys(overrides).length ? { bound: { streams, trading: recordingClient(venue.sim, overrides).client } } : {}),
    instances: [
      { id: 'fut', name: 'opener', symbols: [FUT], params: { size: '0.01', stop: true } },
      { id: 'spot', name: 'opener', symbols: [SPOT], params: { size: '0.002' } },
      { id: 'idle', name: 'bidder', symbols: [SPOT], params: { offsetPct: 3 } },
    ],
    ...(Object.keys(overrides).length ? {} : { bound: { streams } }),
    simPrices: true,
    definitions: new Map([
      ['opener', opener],
      ['bidder', bidder({ markets: 0, params: [] })],
    ]),
  });
  const service = new ControlService({
    core,
    clock: venue.clock,
    logger: silentLogger,
    mode: 'live',
    lastPolled: new Map(),
    reload: async () => [],
    flatten: async (latch) => (latch(), 'flattened'),
  });
  await core.reconcile({ scanForeign: true, startup: true });
  core.start();
  const tick = async () => {
    venue.clock.advance(1000);
    pushAccount(streams, venue);
    streams.tickers$.next({
      value: new Map([
        [SPOT, venue.sim.tickerNow(SPOT)!],
        [FUT, venue.sim.tickerNow(FUT)!],
      ]),
      atMs: venue.clock.now(),
    });
    for (let i = 0; i < 5 || core.busy() > 0; i++) await nextTurn();
  };
  return { venue, core, service, tick };
}

const ordersOf = (core: Core, id: string): JournalOrder[] => core.journal.allOrders().filter((r) => r.strategyId === id);
const longSize = (venue: ReturnType<typeof simVenue>) =>
  venue.sim
    .positionsNow(FUT)
    .filter((p) => p.side === 'long')
    .reduce((a, p) => a.add(p.size), Decimal.ZERO);

describe('force exit, over the real core', () => {
  it("closes a strategy's futures position at market as its own order, after pausing it and canceling its orders there", async () => {
    const { venue, core, service, tick } = await setup();
    await tick();
    await core.reconcile();
    expect(longSize(venue).toString()).toBe('0.01');
    const resting = ordersOf(core, 'fut').find((r) => r.kind === 'limit' && !r.isTrigger)!;
    expect(resting.state).toBe('open');
    const stop = ordersOf(core, 'fut').find((r) => r.isTrigger)!;
    expect(stop).toMatchObject({ reduceOnly: true, state: 'untriggered' });

    const result = await service.forceExit('fut', FUT, ACTOR, 'take it off');
    expect(result).toMatchObject({
      ok: true,
      detail: expect.stringMatching(
        /^fut paused; its orders on cmt_btcusdt: 1 order\(s\) canceled; fut holds long 0\.01, the account 0\.01: closing long 0\.01 at market: sx_fut_\d+ filled 0\.01 of 0\.01 at [\d.]+; 1 of its 1 stop\(s\) on cmt_btcusdt canceled; \/resume fut lets it trade again$/,
      ),
    });
    // Gone at the venue.
    expect(longSize(venue).isZero()).toBe(true);
    // The close is the strategy's own order, journaled (with its client id) like any other, and filled.
    const close = ordersOf(core, 'fut').find((r) => r.reduceOnly && !r.isTrigger)!;
    expect(close).toMatchObject({
      clientOid: expect.stringMatching(/^sx_fut_\d+$/),
      strategyId: 'fut',
      surface: 'futures',
      symbol: FUT,
      side: 'sell',
      kind: 'market',
      positionSide: 'long',
      size: '0.01',
      state: 'filled',
      filledSize: '0.01',
    });
    expect(
      core.journal
        .history(close.clientOid)
        .map((h) => h.event)
        .slice(0, 2),
    ).toEqual(['written', 'accepted']);
    expect(core.journal.order(resting.clientOid)!.state).toBe('canceled');
    // Its stop protected what it no longer holds: canceled once the close had filled, not before.
    expect(core.journal.order(stop.clientOid)!.state).toBe('canceled');
    expect(core.journal.order(stop.clientOid)!.updatedAtMs).toBeGreaterThanOrEqual(close.updatedAtMs);
    // The strategy stays paused: a tick calls none of its hooks, so nothing opens again.
    expect(service.strategies().find((s) => s.id === 'fut')!.state).toBe('paused');
    const before = calls.markets;
    const orders = ordersOf(core, 'fut').length;
    await tick();
    expect(calls.markets - before).toBe(1); // the spot opener only
    expect(ordersOf(core, 'fut')).toHaveLength(orders);
    // Journaled as a command with who, why and what; told as an event.
    expect(
      core.journal
        .commands()
        .map((c) => ({ command: c.command, via: c.via, who: c.who, args: JSON.parse(c.args) as unknown, reason: c.reason, ok: c.outcome?.ok })),
    ).toEqual([{ command: 'force-exit', via: 'telegram', who: '1001', args: { id: 'fut', symbol: FUT }, reason: 'take it off', ok: true }]);
    expect(
      service
        .recentEvents()
        .filter((e) => e.kind === 'command')
        .map((e) => e.text),
    ).toEqual([expect.stringMatching(/^force-exit fut by telegram\/1001: fut paused; /)]);
    // Nothing more to close: refused, and nothing changes.
    expect(await service.forceExit('fut', FUT, ACTOR)).toEqual({
      ok: false,
      status: 409,
      error: 'nothing to close: fut holds nothing on cmt_btcusdt by its fills',
    });
    core.stopIntake();
    service.stop();
  });

  it("sells a strategy's spot inventory (what its fills bought), not the account's other holdings", async () => {
    const { venue, core, service, tick } = await setup();
    await tick();
    await core.reconcile();
    const btcBefore = (await venue.sim.balances('spot')).find((b) => b.asset === 'BTC')!.total;
    const bought = ordersOf(core, 'spot')
      .filter((r) => r.kind === 'market')
      .reduce((a, r) => a.add(Decimal.from(r.filledSize)), Decimal.ZERO);
    expect(bought.toString()).toBe('0.002');

    const result = await service.forceExit('spot', SPOT, ACTOR);
    expect(result).toMatchObject({ ok: true, detail: expect.stringContaining('spot bought 0.002 BTC more than it sold, ') });
    const sell = ordersOf(core, 'spot').find((r) => r.side === 'sell')!;
    expect(sell).toMatchObject({
      clientOid: expect.stringMatching(/^sx_spot_\d+$/),
      surface: 'spot',
      kind: 'market',
      size: '0.002',
      state: 'filled',
      filledSize: '0.002',
      reduceOnly: false,
    });
    const btcAfter = (await venue.sim.balances('spot')).find((b) => b.asset === 'BTC')!.total;
    expect(btcBefore.sub(btcAfter).toString()).toBe('0.002');
    // What its fills hold is nothing now: bought and sold the same.
    const fills = core.journal.fills({ strategyId: 'spot' });
    const net = fills.reduce((a, f) => (f.side === 'buy' ? a.add(Decimal.from(f.size)) : a.sub(Decimal.from(f.size))), Decimal.ZERO);
    expect(net.isZero()).toBe(true);
    // The other strategy on that symbol is left alone: still running, its bid still resting.
    expect(service.strategies().find((s) => s.id === 'idle')).toMatchObject({ state: 'running', openOrders: 1 });
    core.stopIntake();
  });

  it("never takes another strategy's part: fills that say more than the account holds (closed outside its orders) close only what is left over, here nothing", async () => {
    const { venue, core, service, tick } = await setup();
    await tick();
    await core.reconcile();
    expect(longSize(venue).toString()).toBe('0.01');
    // Another strategy (since taken out of the config) bought a long of 0.01 on the symbol: the account's 0.01 is
    // its part, however fut's fills read (fut's long was closed outside its own orders: a close-all, a hand).
    core.journal.insertOrders([
      journalRow('sx_gone_1', {
        strategyId: 'gone',
        surface: 'futures',
        symbol: FUT,
        side: 'buy',
        kind: 'market',
        timeInForce: 'ioc',
        price: null,
        size: '0.01',
        positionSide: 'long',
        orderId: '990001',
        state: 'filled',
        filledSize: '0.01',
      }),
    ]);
    expect(
      core.journal.recordFill({
        clientOid: 'sx_gone_1',
        orderId: '990001',
        fillId: 'gone-fill-1',
        price: '90000',
        size: '0.01',
        fee: '0',
        atMs: venue.clock.now(),
      }),
    ).toBe(true);
    const result = await service.forceExit('fut', FUT, ACTOR);
    // Refused before anything changes: it keeps running, its orders there stay.
    expect(result).toEqual({
      ok: false,
      status: 409,
      error: "nothing to close: fut holds long 0.01, the account 0.01, other strategies' fills 0.01: nothing to close",
    });
    expect(service.strategies().find((s) => s.id === 'fut')!.state).toBe('running');
    expect(longSize(venue).toString()).toBe('0.01');
    expect(ordersOf(core, 'fut').filter((r) => r.reduceOnly && !r.isTrigger)).toEqual([]);
    core.stopIntake();
  });

  it('answers 404 for an unknown strategy or a symbol it does not trade, 409 with nothing to close, and changes nothing then', async () => {
    const { core, service, tick } = await setup();
    await tick();
    expect(await service.forceExit('nope', FUT, ACTOR)).toEqual({ ok: false, status: 404, error: 'no strategy nope' });
    expect(await service.forceExit('fut', SPOT, ACTOR)).toEqual({ ok: false, status: 404, error: `fut does not trade ${SPOT} (its symbols: ${FUT})` });
    // The idle bidder has bought nothing: its resting bid stays, and it keeps running.
    expect(await service.forceExit('idle', SPOT, ACTOR)).toEqual({
      ok: false,
      status: 409,
      error: `nothing to close: idle holds nothing on ${SPOT} by its fills`,
    });
    expect(service.strategies().find((s) => s.id === 'idle')).toMatchObject({ state: 'running', openOrders: 1 });
    expect(core.journal.commands().map((c) => [c.command, c.outcome?.ok])).toEqual([
      ['force-exit', false],
      ['force-exit', false],
      ['force-exit', false],
    ]);
    core.stopIntake();
  });

  it('sends nothing while an order of the strategy there is not settled (a cancel the venue did not confirm): it may yet fill', async () => {
    const { venue, core, service, tick } = await setup({
      cancelOrders: async (_surface, _symbol, target) =>
        (target.orderIds ?? target.clientOids ?? []).map((id) => ({
          outcome: 'unknown' as const,
          clientOid: null,
          orderId: id,
          error: new ExchangeError('timeout', 'no answer', { endpoint: 'F7' }),
        })),
    });
    await tick();
    await core.reconcile();
    const result = await service.forceExit('fut', FUT, ACTOR);
    expect(result).toMatchObject({
      ok: false,
      status: 409,
      error: expect.stringMatching(
        /^fut paused; its orders on cmt_btcusdt: 0 order\(s\) canceled, 1 still open .*; not closed: its orders on cmt_btcusdt are not all settled \(sx_fut_\d+ \w+\): .*fut stays paused$/,
      ),
    });
    expect(longSize(venue).toString()).toBe('0.01');
    expect(ordersOf(core, 'fut').filter((r) => r.reduceOnly && !r.isTrigger)).toEqual([]);
    expect(service.strategies().find((s) => s.id === 'fut')!.state).toBe('paused');
    core.stopIntake();
  });

  it('is refused by the risk gate while trading is halted (the position stays; /flatten is for that)', async () => {
    const { venue, core, service, tick } = await setup();
    await tick();
    await core.reconcile();
    await service.halt('incident', ACTOR);
    const result = await service.forceExit('fut', FUT, ACTOR);
    expect(result).toMatchObject({ ok: false, status: 409, error: expect.stringMatching(/^the risk gate refused the close \(halted\): .*fut stays paused$/) });
    expect(longSize(venue).toString()).toBe('0.01');
    // The position keeps its stop.
    expect(ordersOf(core, 'fut').find((r) => r.isTrigger)!.state).toBe('untriggered');
    core.stopIntake();
  });
});

describe('realised PnL by window and by symbol, from the journal', () => {
  const DAY = 86_400_000;

  /** An order of `strategyId` and one fill of it at `atMs`. */
  function fill(core: Core, n: number, strategyId: string, symbol: string, side: 'buy' | 'sell', price: string, size: string, fee: string, atMs: number) {
    const clientOid = `sx_${strategyId}_${n}`;
    core.journal.insertOrders([
      journalRow(clientOid, {
        strategyId,
        symbol,
        side,
        price,
        size,
        state: 'filled',
        filledSize: size,
        avgPrice: price,
        surface: symbol === FUT ? 'futures' : 'spot',
        positionSide: symbol === FUT ? 'long' : null,
        reduceOnly: symbol === FUT && side === 'sell',
      }),
    ]);
    core.journal.recordFill({ clientOid, orderId: String(1000 + n), fillId: `f${n}`, price, size, fee, atMs });
  }

  it('books each strategy and symbol at average cost over all its fills, and counts each fill in the windows its time falls in', async () => {
    const { venue, core, service } = await setup();
    const now = venue.clock.now();
    const today = Math.floor(now / DAY) * DAY;
    // 'spot' (configured): bought 2 at 100 and 1 at 130 ten days ago (average 110), sold 1 at 120 three days ago
    // (+10), sold 2 at 100 today (-20): a round trip closed today.
    fill(core, 1, 'spot', SPOT, 'buy', '100', '2', '0.2', now - 10 * DAY);
    fill(core, 2, 'spot', SPOT, 'buy', '130', '1', '0.13', now - 10 * DAY);
    fill(core, 3, 'spot', SPOT, 'sell', '120', '1', '0.12', now - 3 * DAY);
    fill(core, 4, 'spot', SPOT, 'sell', '100', '2', '0.2', today + 1);
    // 'gone' (not configured any more): a long on the contract opened and closed today, +5 before fees.
    fill(core, 5, 'gone', FUT, 'buy', '90000', '0.001', '0.05', today + 2);
    fill(core, 6, 'gone', FUT, 'sell', '95000', '0.001', '0.05', today + 3);

    const [day, week, all] = service.profit();
    expect(day).toMatchObject({ window: 'today', sinceMs: today });
    expect(week).toMatchObject({ window: '7d', sinceMs: now - 7 * DAY });
    expect(all).toMatchObject({ window: 'all', sinceMs: null });
    const of = (w: typeof day, id: string) => w!.strategies.find((s) => s.id === id);
    // The configured strategies first (in their order, zeros when nothing was realised), then the others.
    expect(all!.strategies.map((s) => s.id)).toEqual(['fut', 'spot', 'idle', 'gone']);
    expect(of(day, 'fut')).toEqual({ id: 'fut', realized: '0.00000000', fees: '0.00000000', fills: 0, roundTrips: 0 });
    // Today: -20 - 0.2 (spot); 5 - 0.1 (gone). Total -15.3.
    expect(of(day, 'spot')).toEqual({ id: 'spot', realized: '-20.20000000', fees: '0.20000000', fills: 1, roundTrips: 1 });
    expect(of(day, 'gone')).toEqual({ id: 'gone', realized: '4.90000000', fees: '0.10000000', fills: 2, roundTrips: 1 });
    expect(day!.total).toEqual({ realized: '-15.30000000', fees: '0.30000000', fills: 3, roundTrips: 2 });
    // 7 days: spot also +10 - 0.12.
    expect(of(week, 'spot')).toEqual({ id: 'spot', realized: '-10.32000000', fees: '0.32000000', fills: 2, roundTrips: 1 });
    // All time: spot also the buys' fees; the all-time figures are the strategy view's.
    expect(of(all, 'spot')).toEqual({ id: 'spot', realized: '-10.65000000', fees: '0.65000000', fills: 4, roundTrips: 1 });
    expect(service.strategies().find((s) => s.id === 'spot')!.pnl).toEqual({ realized: of(all, 'spot')!.realized, fees: of(all, 'spot')!.fees, fills: 4 });
    expect(all!.total).toEqual({ realized: '-5.75000000', fees: '0.75000000', fills: 6, roundTrips: 2 });

    // By symbol, best first.
    expect(service.performance()).toEqual([
      { symbol: FUT, realized: '4.90000000', fees: '0.10000000', fills: 2, roundTrips: 1 },
      { symbol: SPOT, realized: '-10.65000000', fees: '0.65000000', fills: 4, roundTrips: 1 },
    ]);

    // The chat's answers over this Control.
    const chat = new ChatCommands(service, venue.clock);
    const profit = (await chat.handle('1001', '/profit'))!.text;
    expect(profit.split('\n')).toEqual([
      'Realised PnL (average cost, fees included)',
      `Today (since ${new Date(today).toISOString().slice(0, 10)} 00:00 UTC):`,
      '  fut 0 (fees 0, 0 fills, 0 round trips)',
      '  spot -20.2 (fees 0.2, 1 fill, 1 round trip)',
      '  idle 0 (fees 0, 0 fills, 0 round trips)',
      '  gone 4.9 (fees 0.1, 2 fills, 1 round trip)',
      '  total -15.3 (fees 0.3, 3 fills, 2 round trips)',
      `Last 7 days (since ${new Date(now - 7 * DAY).toISOString().slice(0, 16).replace('T', ' ')} UTC):`,
      '  fut 0 (fees 0, 0 fills, 0 round trips)',
      '  spot -10.32 (fees 0.32, 2 fills, 1 round trip)',
      '  idle 0 (fees 0, 0 fills, 0 round trips)',
      '  gone 4.9 (fees 0.1, 2 fills, 1 round trip)',
      '  total -5.42 (fees 0.42, 4 fills, 2 round trips)',
      'All time:',
      '  fut 0 (fees 0, 0 fills, 0 round trips)',
      '  spot -10.65 (fees 0.65, 4 fills, 1 round trip)',
      '  idle 0 (fees 0, 0 fills, 0 round trips)',
      '  gone 4.9 (fees 0.1, 2 fills, 1 round trip)',
      '  total -5.75 (fees 0.75, 6 fills, 2 round trips)',
    ]);
    expect((await chat.handle('1001', '/performance'))!.text.split('\n')).toEqual([
      'Realised PnL by symbol (every strategy, all time, fees included), best first',
      `1. ${FUT} 4.9 (fees 0.1, 2 fills, 1 round trip)`,
      `2. ${SPOT} -10.65 (fees 0.65, 4 fills, 1 round trip)`,
    ]);
    core.stopIntake();
  });
});
