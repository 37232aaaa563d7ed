// Every order accounted for, against `sextant sim` over HTTP: read-after-write lag on futures (R10), a venue
// that forgets (R11), unknown and lost rows that end (R12), unknown futures orders that filled, cancels that
// reach only a strategy's own orders and are sent whatever the journal believes, caps that count the venue.
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { OrderSpec } from '../../../src/domain/intent.js';
import type { Order } from '../../../src/domain/order.js';
import { reconcileAndOpen } from '../../../src/execution/order-tracker.js';
import { ManualClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { LOOSE_LIMITS } from '../../fixtures/bot.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { priceAt, startSimBot, type SimBot } from '../../fixtures/sim-bot.js';

const d = (s: string) => Decimal.from(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const running: SimBot[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close().catch(() => undefined);
});
async function start(over: Parameters<typeof startSimBot>[0] = {}): Promise<SimBot> {
  const s = await startSimBot(over);
  running.push(s);
  return s;
}

const futBuy = (price: Decimal, size = '0.01'): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size: d(size), positionSide: 'long' });
const spotBuy = (price: Decimal): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size: d('0.01') });

describe('R10: the venue lists new futures orders late', () => {
  it('an accepted order missing from current orders stays open through reconciliations: nothing concluded, nothing re-placed', async () => {
    const { server, bot } = await start({ graceMs: 200, vanishAfterMs: 60_000, vanishAfterChecks: 3 });
    bot.executor.unfence();
    server.faults.visibilityLagMs = 2500;
    const [ev] = await bot.executor.submit({
      kind: 'place',
      strategyId: 'lag',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futBuy(priceAt(server, 'cmt_btcusdt', '0.98'))],
    });
    expect(ev!.type).toBe('accepted');
    await sleep(300);
    for (let i = 0; i < 4; i++) {
      const r = await bot.tracker.reconcile();
      expect(r.vanished).toBe(0);
      expect(bot.journal.allOrders()[0]!.state).toBe('open');
    }
    expect(bot.journal.allOrders()[0]!.absentChecks).toBe(4);
    await sleep(2400);
    await bot.tracker.reconcile();
    const row = bot.journal.allOrders()[0]!;
    expect(row).toMatchObject({ state: 'open', absentChecks: 0 });
    expect(row.seenAtMs).not.toBeNull();
    expect(server.engine.openOrders('futures', 'cmt_btcusdt')).toHaveLength(1);
  });

  it('an order the venue stopped knowing becomes vanished after the bound, with the evidence in its history', async () => {
    // The bot's time moves only when told: how long the lookups take on a busy machine does not count.
    const clock = new ManualClock(Date.now());
    const { bot } = await start({ graceMs: 0, vanishAfterMs: 300, vanishAfterChecks: 3, clock });
    bot.journal.insertOrders([
      journalRow('sx_gone_1', {
        strategyId: 'gone',
        intentId: 0,
        surface: 'futures',
        symbol: 'cmt_btcusdt',
        price: '100',
        size: '0.01',
        positionSide: 'long',
        orderId: '987654321987654321',
        state: 'open',
        createdAtMs: clock.now(),
        updatedAtMs: clock.now(),
        seenAtMs: clock.now(),
      }),
    ]);
    const events: ExecutionEvent[] = [];
    bot.executor.events$.subscribe((e) => events.push(e));
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      await bot.tracker.reconcile();
      states.push(bot.journal.order('sx_gone_1')!.state);
    }
    // Three lookups, but not yet unseen long enough.
    expect(states).toEqual(['open', 'open', 'open']);
    clock.advance(350);
    const r = await bot.tracker.reconcile();
    expect(r.vanished).toBe(1);
    expect(bot.journal.order('sx_gone_1')!.state).toBe('vanished');
    expect(bot.journal.activeOrders()).toHaveLength(0);
    expect(bot.journal.history('sx_gone_1').at(-1)!.event).toMatch(/unknown to the venue in 4 lookups in a row over 0 s by order id 987654321987654321/);
    expect(events.filter((e) => e.type === 'vanished')).toHaveLength(1);
  });
});

describe('R11: the venue is replaced by a fresh one', () => {
  it("the startup pass settles the unanswered orders, trading resumes, and the fresh venue's same-numbered orders are never taken or canceled as ours", async () => {
    const first = await start({ graceMs: 0 });
    first.bot.executor.unfence();
    await first.bot.executor.submit({
      kind: 'place',
      strategyId: 'mm',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(first.server, 'BTCUSDT_SPBL', '0.98'))],
    });
    await first.bot.executor.submit({
      kind: 'place',
      strategyId: 'mm',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futBuy(priceAt(first.server, 'cmt_btcusdt', '0.98'))],
    });
    first.server.faults.scripted.push({ endpoint: 'F6', kind: 'html-502' });
    await first.bot.executor.submit({
      kind: 'place',
      strategyId: 'mm',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futBuy(priceAt(first.server, 'cmt_btcusdt', '0.97'))],
    });
    expect(
      first.bot.journal
        .allOrders()
        .map((r) => r.state)
        .sort(),
    ).toEqual(['open', 'open', 'unknown']);
    const journalPath = first.journalPath;
    await first.close();
    running.splice(running.indexOf(first), 1);

    // A fresh venue: its order ids start again at 1, and a person's order now holds the ids ours had.
    const second = await start({ graceMs: 0, lostAfterChecks: 3, vanishAfterMs: 400, vanishAfterChecks: 2, journalPath, seed: 12 });
    const manual = [
      {
        clientOid: 'manual_1',
        side: 'buy' as const,
        kind: 'limit' as const,
        timeInForce: 'gtc' as const,
        price: priceAt(second.server, 'cmt_btcusdt', '0.97'),
        size: d('0.01'),
        positionSide: 'long' as const,
      },
    ];
    second.server.engine.place('futures', 'cmt_btcusdt', manual);
    second.server.engine.place('spot', 'BTCUSDT_SPBL', [
      { ...manual[0]!, clientOid: 'manual_2', price: priceAt(second.server, 'BTCUSDT_SPBL', '0.97'), positionSide: undefined as never },
    ]);
    const r = await reconcileAndOpen(second.bot.tracker, second.bot.executor, silentLogger, { scanForeign: true, startup: true });
    expect(r!.lost).toBe(1);
    expect(second.bot.executor.fenced).toBeNull();
    expect(r!.foreign.map((f) => f.clientOid).sort()).toEqual(['manual_1', 'manual_2']);
    for (const row of second.bot.journal.allOrders()) expect(row.state).not.toBe('filled');
    // Cancel-all reaches only orders that are ours by client id.
    await second.bot.executor.submit({ kind: 'cancel-all', strategyId: 'mm', surface: 'futures', symbol: 'cmt_btcusdt' });
    await second.bot.executor.submit({ kind: 'cancel-all', strategyId: 'mm', surface: 'spot', symbol: 'BTCUSDT_SPBL' });
    expect(second.server.engine.openOrders('futures', 'cmt_btcusdt').map((o) => o.clientOid)).toEqual(['manual_1']);
    expect(second.server.engine.openOrders('spot', 'BTCUSDT_SPBL').map((o) => o.clientOid)).toEqual(['manual_2']);
    // The open rows of the old venue end within the bound.
    await sleep(450);
    for (let i = 0; i < 2; i++) await second.bot.tracker.reconcile();
    expect(second.bot.journal.activeOrders().filter((x) => x.state !== 'lost')).toEqual([]);
    expect(second.bot.journal.allOrders().filter((x) => x.state === 'vanished')).toHaveLength(2);
  });
});

describe('R12: unanswered orders end', () => {
  it('a lost order stops counting as open at once and becomes final (not-placed) after the further checks', async () => {
    const { server, bot } = await start({ graceMs: 0, lostAfterChecks: 1, notPlacedAfterChecks: 2, limits: { ...LOOSE_LIMITS, maxOpenOrdersPerSymbol: 1 } });
    bot.executor.unfence();
    server.faults.scripted.push({ endpoint: 'S6', kind: 'html-502' });
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'r12',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(server, 'BTCUSDT_SPBL', '0.98'))],
    });
    await bot.tracker.reconcile();
    expect(bot.journal.allOrders()[0]!.state).toBe('lost');
    const ev = await bot.executor.submit({
      kind: 'place',
      strategyId: 'r12',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(server, 'BTCUSDT_SPBL', '0.97'))],
    });
    expect(ev.map((e) => e.type)).toEqual(['accepted']);
    const lost = bot.journal.allOrders().find((r) => r.state === 'lost')!;
    await bot.tracker.reconcile();
    expect(bot.journal.order(lost.clientOid)!.state).toBe('lost');
    await bot.tracker.reconcile();
    expect(bot.journal.order(lost.clientOid)!.state).toBe('not-placed');
    expect(bot.journal.activeOrders().map((r) => r.clientOid)).not.toContain(lost.clientOid);
  });

  it('an unanswered order its strategy keeps cancelling (each cancel finds nothing) is still concluded lost', async () => {
    const { server, bot } = await start({ graceMs: 0, lostAfterChecks: 2 });
    bot.executor.unfence();
    server.faults.scripted.push({ endpoint: 'S6', kind: 'html-502' });
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'mm',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(server, 'BTCUSDT_SPBL', '0.98'))],
    });
    const row = bot.journal.allOrders()[0]!;
    expect(row.state).toBe('unknown');
    // Every lookup is slow; the strategy's cancel lands while the tracker waits for it.
    server.faults.scripted.push({ endpoint: 'S3', kind: 'latency', ms: 300, times: 10 });
    const cancel = () => bot.executor.submit({ kind: 'cancel', strategyId: 'mm', surface: 'spot', symbol: 'BTCUSDT_SPBL', clientOids: [row.clientOid] });
    for (let i = 0; i < 2; i++) await Promise.all([bot.tracker.reconcile(), new Promise((r) => setTimeout(r, 50)).then(cancel)]);
    expect(bot.journal.order(row.clientOid)!.state).toBe('lost');
  });

  it('an unknown futures order that filled before the first lookup is resolved as filled, with its fills', async () => {
    const { server, bot } = await start({ graceMs: 0 });
    bot.executor.unfence();
    server.faults.scripted.push({ endpoint: 'F6', kind: 'accept-then-500' });
    const [ev] = await bot.executor.submit({
      kind: 'place',
      strategyId: 'r12',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [{ side: 'buy', kind: 'market', timeInForce: 'gtc', size: d('0.01'), positionSide: 'long' }],
    });
    expect(ev!.type).toBe('unknown');
    expect(server.engine.openOrders('futures', 'cmt_btcusdt')).toHaveLength(0);
    const r = await bot.tracker.reconcile();
    expect(r.resolved).toBe(1);
    const row = bot.journal.allOrders()[0]!;
    expect(row).toMatchObject({ state: 'filled', filledSize: '0.01' });
    expect(row.orderId).not.toBeNull();
    expect(r.fills).toBeGreaterThan(0);
  });
});

describe('cancels', () => {
  it('a strategy cancels only its own orders, on its own symbol', async () => {
    const { server, bot } = await start();
    bot.executor.unfence();
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'a',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futBuy(priceAt(server, 'cmt_btcusdt', '0.98'))],
    });
    const theirs = bot.journal.allOrders()[0]!;
    const byId = await bot.executor.submit({ kind: 'cancel', strategyId: 'b', surface: 'futures', symbol: 'cmt_btcusdt', orderIds: [theirs.orderId!] });
    expect(byId).toEqual([expect.objectContaining({ type: 'denied', reason: 'not-own-order', detail: expect.stringContaining('belongs to strategy a') })]);
    const otherSymbol = await bot.executor.submit({ kind: 'cancel', strategyId: 'a', surface: 'futures', symbol: 'cmt_ethusdt', orderIds: [theirs.orderId!] });
    expect(otherSymbol).toEqual([expect.objectContaining({ type: 'denied', reason: 'not-own-order' })]);
    const unknownId = await bot.executor.submit({ kind: 'cancel', strategyId: 'b', surface: 'futures', symbol: 'cmt_btcusdt', orderIds: ['123'] });
    expect(unknownId).toEqual([expect.objectContaining({ type: 'denied', reason: 'not-own-order' })]);
    await bot.executor.submit({ kind: 'cancel-all', strategyId: 'b', surface: 'futures', symbol: 'cmt_btcusdt' });
    expect(server.engine.openOrders('futures', 'cmt_btcusdt')).toHaveLength(1);
    expect(bot.journal.riskDecisions().map((x) => x.reason)).toEqual(['not-own-order', 'not-own-order', 'not-own-order']);
    await bot.executor.submit({ kind: 'cancel-all', strategyId: 'a', surface: 'futures', symbol: 'cmt_btcusdt' });
    expect(server.engine.openOrders('futures', 'cmt_btcusdt')).toHaveLength(0);
  });

  it('a cancel by order id is sent even when the journal holds the order final', async () => {
    const { server, bot } = await start();
    bot.executor.unfence();
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'a',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(server, 'BTCUSDT_SPBL', '0.98'))],
    });
    const row = bot.journal.allOrders()[0]!;
    bot.journal.updateOrder(row.clientOid, { state: 'closed' }, 'concluded too early', Date.now());
    const ev = await bot.executor.submit({ kind: 'cancel', strategyId: 'a', surface: 'spot', symbol: 'BTCUSDT_SPBL', orderIds: [row.orderId!] });
    expect(ev.map((e) => e.type)).toEqual(['canceled']);
    expect(server.engine.openOrders('spot', 'BTCUSDT_SPBL')).toHaveLength(0);
    expect(bot.journal.order(row.clientOid)!.state).toBe('canceled');
  });
});

describe('fills just before a cancel', () => {
  it('an order partly filled when its cancel is accepted: the fills are read at once and reach the journal and the strategy', async () => {
    const { server, bot, market } = await start();
    bot.executor.unfence();
    const [ev] = await bot.executor.submit({
      kind: 'place',
      strategyId: 'a',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: priceAt(server, 'BTCUSDT_SPBL', '0.99'), size: d('5') }],
    });
    expect(ev!.type).toBe('accepted');
    // The market trades through the bid; the venue matches it when the cancel arrives, then cancels the rest.
    market.shift('BTCUSDT_SPBL', -20_000);
    await sleep(1100);
    const events = await bot.executor.submit({ kind: 'cancel-all', strategyId: 'a', surface: 'spot', symbol: 'BTCUSDT_SPBL' });
    expect(events.map((e) => e.type)).toEqual(['canceled', 'partially-filled']);
    const row = bot.journal.allOrders()[0]!;
    expect(row.state).toBe('canceled');
    expect(Decimal.from(row.filledSize).gt(d('0'))).toBe(true);
    expect(bot.journal.history(row.clientOid).map((h) => h.event)).toContain('filled before the cancel');
  });
});

describe('shutdown', () => {
  it('cancels the resting orders and keeps stop triggers unless told to cancel them too', async () => {
    const { server, bot } = await start();
    bot.executor.unfence();
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'g',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futBuy(priceAt(server, 'cmt_btcusdt', '0.98'))],
    });
    await bot.executor.submit({
      kind: 'place',
      strategyId: 'g',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [{ side: 'buy', kind: 'market', timeInForce: 'gtc', size: d('0.02'), positionSide: 'long' }],
    });
    const [trigger] = await bot.executor.submit({
      kind: 'place-trigger',
      strategyId: 'g',
      symbol: 'cmt_btcusdt',
      positionSide: 'long',
      reduceOnly: true,
      size: d('0.02'),
      triggerPrice: priceAt(server, 'cmt_btcusdt', '0.96'),
    });
    expect(trigger).toMatchObject({ type: 'accepted', trigger: true });
    const triggerOid = (trigger as Extract<ExecutionEvent, { type: 'accepted' }>).clientOid;
    const keep = await bot.executor.cancelAllOwn('futures', 'cmt_btcusdt', false);
    expect(keep.events.map((e) => e.type)).toEqual(['canceled']);
    expect(keep.keptTriggers.map((r) => r.clientOid)).toEqual([triggerOid]);
    expect(server.engine.openOrders('futures', 'cmt_btcusdt').map((o) => o.clientOid)).toEqual([triggerOid]);
    const all = await bot.executor.cancelAllOwn('futures', 'cmt_btcusdt', true);
    expect(all.events.map((e) => e.type)).toEqual(['canceled']);
    expect(server.engine.openOrders('futures', 'cmt_btcusdt')).toEqual([]);
  });
});

describe('caps', () => {
  it('open-order caps count what the venue lists as well as the journal', async () => {
    let listed: Order[] = [];
    const { server, bot, client } = await start({ limits: { ...LOOSE_LIMITS, maxOpenOrdersPerSymbol: 2 }, listed: () => listed });
    bot.executor.unfence();
    for (const k of [1, 2]) {
      server.engine.place('spot', 'BTCUSDT_SPBL', [
        { clientOid: `manual_${k}`, side: 'buy', kind: 'limit', timeInForce: 'gtc', price: priceAt(server, 'BTCUSDT_SPBL', '0.97'), size: d('0.01') },
      ]);
    }
    listed = await client.openOrders('spot', 'BTCUSDT_SPBL');
    expect(listed).toHaveLength(2);
    const ev = await bot.executor.submit({
      kind: 'place',
      strategyId: 'a',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [spotBuy(priceAt(server, 'BTCUSDT_SPBL', '0.98'))],
    });
    expect(ev).toEqual([expect.objectContaining({ type: 'denied', reason: 'max-open-orders-symbol' })]);
  });
});
