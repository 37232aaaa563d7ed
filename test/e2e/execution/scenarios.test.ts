// Reliability scenarios against `sextant sim` over HTTP: commit-then-5xx (R1), timeout with read-after-write
// lag (R2), partial batches (R3), startup reconciliation (R6), ambiguous cancels (R7), fills, and the risk gate
// in front of the venue (K1).
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { OrderSpec } from '../../../src/domain/intent.js';
import type { LiveClient } from '../../../src/exchange/live/live-client.js';
import { Prng } from '../../../src/util/prng.js';
import { LOOSE_LIMITS } from '../../fixtures/bot.js';
import { priceAt as px, startSimBot, type SimBot, type SimBotOptions } from '../../fixtures/sim-bot.js';

const d = (s: string) => Decimal.from(s);
let running: SimBot | undefined;
let client: LiveClient | undefined;

afterEach(async () => {
  await running?.close();
  running = client = undefined;
});

async function setup(over: SimBotOptions = {}) {
  running = await startSimBot(over);
  client = running.client;
  return running;
}
const futLimit = (price: Decimal): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size: d('0.01'), positionSide: 'long' });

describe('R1: a futures batch is committed, then the answer is a 500', () => {
  it('all 20 are unknown, none re-sent, all resolved through current orders; 20 orders at the venue', async () => {
    const { server: s, bot: b } = await setup();
    b.executor.unfence();
    s.faults.scripted.push({ endpoint: 'F6', kind: 'accept-then-500' });
    const orders = Array.from({ length: 20 }, (_, i) => futLimit(px(s, 'cmt_btcusdt', '0.98').sub(d(String(i)))));
    const events = await b.executor.submit({ kind: 'place', strategyId: 'r1', surface: 'futures', symbol: 'cmt_btcusdt', orders });
    expect(events.map((e) => e.type)).toEqual(Array(20).fill('unknown'));
    const t0 = Date.now();
    const report = await b.tracker.reconcile();
    const resolveMs = Date.now() - t0;
    expect(report.resolved).toBe(20);
    expect(resolveMs).toBeLessThan(10_000);
    expect(s.engine.openOrders('futures', 'cmt_btcusdt')).toHaveLength(20);
    expect(s.snapshot().requests.F6).toBe(1);
    const rows = b.journal.allOrders();
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['open']));
    for (const v of s.engine.openOrders('futures', 'cmt_btcusdt')) expect(b.journal.order(v.clientOid)!.orderId).toBe(v.orderId);
  });
});

describe('R2: a spot batch times out and the venue shows it late', () => {
  it('not declared lost inside the grace window; adopted once visible', async () => {
    const { server: s, bot: b } = await setup({ graceMs: 1500, timeoutMs: 300 });
    b.executor.unfence();
    s.faults.visibilityLagMs = 800;
    s.faults.scripted.push({ endpoint: 'S6', kind: 'timeout', ms: 1000 });
    const events = await b.executor.submit({
      kind: 'place',
      strategyId: 'r2',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: px(s, 'BTCUSDT_SPBL', '0.98'), size: d('0.01') }],
    });
    expect(events.map((e) => e.type)).toEqual(['unknown']);
    for (let i = 0; i < 3; i++) {
      const r = await b.tracker.reconcile();
      expect(r.lost).toBe(0);
    }
    expect(b.journal.allOrders()[0]!.state).toBe('unknown');
    await new Promise((r) => setTimeout(r, 900));
    const r = await b.tracker.reconcile();
    expect(r.resolved).toBe(1);
    expect(b.journal.allOrders()[0]).toMatchObject({ state: 'open' });
  });

  it('never placed (the request did not get through): marked lost only after the grace window and repeated absence', async () => {
    const { server: s, bot: b } = await setup({ graceMs: 300, lostAfterChecks: 3 });
    b.executor.unfence();
    s.faults.scripted.push({ endpoint: 'S6', kind: 'html-502' });
    const lostEvents: ExecutionEvent[] = [];
    b.executor.events$.subscribe((e) => e.type === 'lost' && lostEvents.push(e));
    await b.executor.submit({
      kind: 'place',
      strategyId: 'r2',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: px(s, 'BTCUSDT_SPBL', '0.98'), size: d('0.01') }],
    });
    await b.tracker.reconcile();
    expect(b.journal.allOrders()[0]!.state).toBe('unknown');
    await new Promise((r) => setTimeout(r, 350));
    const states: string[] = [];
    for (let i = 0; i < 3; i++) {
      await b.tracker.reconcile();
      states.push(b.journal.allOrders()[0]!.state);
    }
    expect(states).toEqual(['unknown', 'unknown', 'lost']);
    expect(lostEvents).toHaveLength(1);
    expect(s.engine.history('BTCUSDT_SPBL')).toHaveLength(0);
  });
});

describe('R3: partial batch results', () => {
  it('each item stands alone: accepted items are never retried, refused ones are rejected with their code', async () => {
    const { server: s, bot: b } = await setup();
    b.executor.unfence();
    const good = futLimit(px(s, 'cmt_btcusdt', '0.98'));
    const tooMuch = { ...futLimit(px(s, 'cmt_btcusdt', '0.98')), size: d('0.5'), positionSide: 'short' as const, side: 'buy' as const, reduceOnly: true };
    const wrongSide = { ...tooMuch, side: 'sell' as const };
    const events = await b.executor.submit({ kind: 'place', strategyId: 'r3', surface: 'futures', symbol: 'cmt_btcusdt', orders: [good, tooMuch, wrongSide] });
    expect(events.map((e) => e.type)).toEqual(['denied', 'accepted', 'rejected']);
    expect(events[0]).toMatchObject({ reason: 'side-mismatch' });
    expect(events[2]).toMatchObject({ code: '40017' });
    expect(s.snapshot().requests.F6).toBe(1);
  });
});

describe('R6: startup reconciliation', () => {
  it('fenced until reconciled; a foreign order is reported and left alone; cancels still go while fenced', async () => {
    const { server: s, bot: b } = await setup();
    s.engine.place('futures', 'cmt_btcusdt', [
      { clientOid: 'manual_1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: px(s, 'cmt_btcusdt', '0.97'), size: d('0.01'), positionSide: 'long' },
    ]);
    const denied = await b.executor.submit({
      kind: 'place',
      strategyId: 'r6',
      surface: 'futures',
      symbol: 'cmt_btcusdt',
      orders: [futLimit(px(s, 'cmt_btcusdt', '0.98'))],
    });
    expect(denied.map((e) => e.type === 'denied' && e.reason)).toEqual(['fenced']);
    expect(s.snapshot().requests.F6 ?? 0).toBe(0);
    const report = await b.tracker.reconcile({ scanForeign: true });
    expect(report.foreign).toEqual([{ surface: 'futures', symbol: 'cmt_btcusdt', orderId: expect.any(String), clientOid: 'manual_1' }]);
    b.executor.unfence();
    await b.executor.submit({ kind: 'cancel-all', strategyId: 'r6', surface: 'futures', symbol: 'cmt_btcusdt' });
    expect(s.engine.openOrders('futures', 'cmt_btcusdt').map((o) => o.clientOid)).toEqual(['manual_1']);
  });

  it('a reconciliation that fails keeps new orders fenced', async () => {
    const { server: s, bot: b } = await setup();
    s.faults.storm429UntilMs = Date.now() + 60_000;
    await expect(b.tracker.reconcile({ scanForeign: true })).rejects.toMatchObject({ category: 'rate-limit' });
    expect(b.executor.fenced).not.toBeNull();
  });
});

describe('R7: ambiguous cancels', () => {
  it('FAILED_ORDER_NOT_FOUND for an order that filled: resolved by query as filled, its fills recorded', async () => {
    const { server: s, bot: b, market } = await setup();
    b.executor.unfence();
    const price = px(s, 'BTCUSDT_SPBL', '0.99');
    const [ev] = await b.executor.submit({
      kind: 'place',
      strategyId: 'r7',
      surface: 'spot',
      symbol: 'BTCUSDT_SPBL',
      orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size: d('0.01') }],
    });
    expect(ev!.type).toBe('accepted');
    // The market falls through the order: it fills.
    market.shift('BTCUSDT_SPBL', -20_000);
    await new Promise((r) => setTimeout(r, 1100));
    const cancel = await b.executor.submit({ kind: 'cancel-all', strategyId: 'r7', surface: 'spot', symbol: 'BTCUSDT_SPBL' });
    expect(cancel).toEqual([]);
    const row = b.journal.allOrders()[0]!;
    expect(row.state).toBe('canceling');
    const r = await b.tracker.reconcile();
    expect(b.journal.allOrders()[0]).toMatchObject({ state: 'filled', filledSize: '0.01' });
    expect(r.fills).toBeGreaterThan(0);
  });

  it('a cancel whose answer is lost: the order is canceled at the venue and resolved so', async () => {
    const { server: s, bot: b } = await setup();
    b.executor.unfence();
    await b.executor.submit({ kind: 'place', strategyId: 'r7', surface: 'futures', symbol: 'cmt_btcusdt', orders: [futLimit(px(s, 'cmt_btcusdt', '0.98'))] });
    s.faults.scripted.push({ endpoint: 'F7', kind: 'accept-then-drop' });
    await b.executor.submit({ kind: 'cancel-all', strategyId: 'r7', surface: 'futures', symbol: 'cmt_btcusdt' });
    expect(b.journal.allOrders()[0]!.state).toBe('canceling');
    await b.tracker.reconcile();
    // The order's detail (F18) says it was canceled: no guess is left.
    expect(b.journal.allOrders()[0]!.state).toBe('canceled');
    expect(s.engine.openOrders('futures')).toHaveLength(0);
  });
});

describe('K1: no order that breaks a risk rule reaches the venue', () => {
  it('random orders (prices, sizes, kinds) through the gate: everything at the venue is inside the rules', async () => {
    const limits = { ...LOOSE_LIMITS, priceBandPct: d('1'), maxNotionalPerOrder: d('2000'), maxOpenOrdersPerSymbol: 1000, maxOpenOrdersPerStrategy: 1000 };
    const { server: s, bot: b } = await setup({ limits });
    b.executor.unfence();
    const rng = new Prng(4242);
    const inst = (await client!.instruments('spot')).find((i) => i.symbol === 'BTCUSDT_SPBL')!;
    let denied = 0;
    for (let k = 0; k < 40; k++) {
      const ref = s.engine.ticker('BTCUSDT_SPBL')!.last!;
      const orders: OrderSpec[] = Array.from({ length: 20 }, () => {
        const offset = d(String((rng.below(600) - 300) / 10_000)); // ±3 %
        const price = ref.mul(d('1').add(offset)).roundToStep(rng.below(4) === 0 ? d('0.01') : inst.tickSize, 'down');
        const size = d(String(rng.below(4000) + 1)).mul(d('0.000001'));
        return { side: rng.below(2) ? 'buy' : 'sell', kind: 'limit', timeInForce: 'gtc', price, size };
      });
      const ev = await b.executor.submit({ kind: 'place', strategyId: 'k1', surface: 'spot', symbol: 'BTCUSDT_SPBL', orders });
      denied += ev.filter((e) => e.type === 'denied').length;
    }
    const venue = s.engine.history('BTCUSDT_SPBL').map((o) => s.engine.toOrder(o));
    expect(denied).toBeGreaterThan(100);
    expect(venue.length).toBeGreaterThan(50);
    const ref = s.engine.ticker('BTCUSDT_SPBL')!.last!;
    for (const o of venue) {
      expect(o.price!.isMultipleOf(inst.tickSize)).toBe(true);
      expect(o.size.isMultipleOf(inst.stepSize) && o.size.gte(inst.minSize)).toBe(true);
      expect(o.price!.mul(o.size).lte(d('2000'))).toBe(true);
      // within the band of the reference at the time (the market moves little at one tick a second)
      expect(o.price!.sub(ref).abs().div(ref, 6).lte(d('0.012'))).toBe(true);
    }
    expect(b.journal.riskDecisions().length).toBe(denied);
  });
});
