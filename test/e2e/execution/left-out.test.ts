// Batch items the venue's answer left out, against `sextant sim` over HTTP: S6 answers with a resultList of the items
// it took (a refused item is left out of it), and the `leave-out` fault drops an item it took (S6, F6). Each is
// looked up right after the answer: found, it is resolved; not found, it is lost as soon as the tracker's evidence
// allows (the grace window, then its lookups at once), and never while read-after-write lag may still hide it.
import { afterEach, describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { OrderSpec } from '../../../src/domain/intent.js';
import { priceAt as px, startSimBot, type SimBot, type SimBotOptions } from '../../fixtures/sim-bot.js';

const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_btcusdt';
const d = (s: string) => Decimal.from(s);
let running: SimBot | undefined;

afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function setup(over: SimBotOptions) {
  running = await startSimBot(over);
  running.bot.executor.unfence();
  const events: ExecutionEvent[] = [];
  running.bot.executor.events$.subscribe((e) => events.push(e));
  return { ...running, events };
}

/** The types of the events about one order, in order. */
const typesOf = (events: ExecutionEvent[], clientOid: string) => events.flatMap((e) => ('clientOid' in e && e.clientOid === clientOid ? [e.type] : []));

const bid = (s: SimBot['server'], pct: string): OrderSpec => ({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price: px(s, SPOT, pct), size: d('0.001') });

/** Places the orders in one S6 request; the journal's rows in the order sent, and how long the submit took. */
async function place(bot: SimBot['bot'], orders: OrderSpec[]) {
  const t0 = Date.now();
  await bot.executor.submit({ kind: 'place', strategyId: 'lo', surface: 'spot', symbol: SPOT, orders });
  const ms = Date.now() - t0;
  const rows = bot.journal.allOrders().sort((a, b) => a.clientOid.localeCompare(b.clientOid));
  return { rows, ms };
}

describe('batch items left out of the answer', () => {
  it('one the venue placed (leave-out): resolved open with its venue id when the answer comes, not sent again', async () => {
    const { server: s, bot, events } = await setup({ graceMs: 0, lostAfterChecks: 2 });
    s.faults.scripted.push({ endpoint: 'S6', kind: 'leave-out' });
    const { rows, ms } = await place(bot, [bid(s, '0.98'), bid(s, '0.97')]);
    const left = rows[1]!.clientOid;
    expect(typesOf(events, left)).toEqual(['unknown', 'resolved']);
    const resting = s.engine.openOrders('spot', SPOT).find((o) => o.clientOid === left)!;
    expect(bot.journal.order(left)).toMatchObject({ state: 'open', orderId: resting.orderId });
    expect(s.snapshot().requests.S6).toBe(1);
    expect(ms).toBeLessThan(5000);
  });

  it('one the venue refused (left out, as S6 answers): lost when the answer comes (grace 0), not final, nothing resting', async () => {
    const { server: s, bot, events } = await setup({ graceMs: 0, lostAfterChecks: 2 });
    // All but 0.01 BTC held by a resting sell: a sell of 0.1 is refused.
    s.engine.place('spot', SPOT, [{ clientOid: 'manual_1', side: 'sell', kind: 'limit', timeInForce: 'gtc', price: px(s, SPOT, '1.04'), size: d('99.99') }]);
    const sell: OrderSpec = { side: 'sell', kind: 'limit', timeInForce: 'gtc', price: px(s, SPOT, '1.02'), size: d('0.1') };
    const { rows } = await place(bot, [bid(s, '0.98'), sell]);
    const left = rows[1]!.clientOid;
    expect(rows[0]!.state).toBe('open');
    expect(typesOf(events, left)).toEqual(['unknown', 'lost']);
    expect(bot.journal.order(left)).toMatchObject({ state: 'lost', absentChecks: 2 });
    expect(s.engine.openOrders('spot', SPOT).map((o) => o.clientOid)).not.toContain(left);
    expect(s.snapshot().requests.S3).toBe(2);
  });

  it('one the venue refused, with a grace window: not lost inside it; lost at the first reconciliation after it', async () => {
    const { server: s, bot } = await setup({ graceMs: 600, lostAfterChecks: 2 });
    s.engine.place('spot', SPOT, [{ clientOid: 'manual_1', side: 'sell', kind: 'limit', timeInForce: 'gtc', price: px(s, SPOT, '1.04'), size: d('99.99') }]);
    const sell: OrderSpec = { side: 'sell', kind: 'limit', timeInForce: 'gtc', price: px(s, SPOT, '1.02'), size: d('0.1') };
    const { rows } = await place(bot, [bid(s, '0.98'), sell]);
    const left = rows[1]!.clientOid;
    expect(bot.journal.order(left)).toMatchObject({ state: 'unknown', absentChecks: 0 });
    expect((await bot.tracker.reconcile()).lost).toBe(0);
    await new Promise((r) => setTimeout(r, 650));
    expect((await bot.tracker.reconcile()).lost).toBe(1);
    expect(bot.journal.order(left)).toMatchObject({ state: 'lost', absentChecks: 2 });
  });

  it('F6 alike: a futures order left out of order_info is resolved open when the answer comes', async () => {
    const { server: s, bot, events } = await setup({ graceMs: 0, lostAfterChecks: 2 });
    s.faults.scripted.push({ endpoint: 'F6', kind: 'leave-out' });
    const long = (pct: string): OrderSpec => ({
      side: 'buy',
      kind: 'limit',
      timeInForce: 'gtc',
      price: px(s, FUT, pct),
      size: d('0.01'),
      positionSide: 'long',
    });
    await bot.executor.submit({ kind: 'place', strategyId: 'lo', surface: 'futures', symbol: FUT, orders: [long('0.98'), long('0.97')] });
    const left = bot.journal.allOrders().sort((a, b) => a.clientOid.localeCompare(b.clientOid))[1]!.clientOid;
    expect(typesOf(events, left)).toEqual(['unknown', 'resolved']);
    const resting = s.engine.openOrders('futures', FUT).find((o) => o.clientOid === left)!;
    expect(bot.journal.order(left)).toMatchObject({ state: 'open', orderId: resting.orderId });
  });

  it('placed but invisible to reads for a while (read-after-write lag): never lost inside the grace window, resolved once visible', async () => {
    const { server: s, bot, events } = await setup({ graceMs: 1500, lostAfterChecks: 2 });
    s.faults.visibilityLagMs = 800;
    s.faults.scripted.push({ endpoint: 'S6', kind: 'leave-out' });
    const { rows } = await place(bot, [bid(s, '0.98'), bid(s, '0.97')]);
    const left = rows[1]!.clientOid;
    // Looked up at once: not visible yet, and its absence counts for nothing inside the window.
    expect(bot.journal.order(left)).toMatchObject({ state: 'unknown', absentChecks: 0 });
    expect((await bot.tracker.reconcile()).lost).toBe(0);
    await new Promise((r) => setTimeout(r, 900));
    const report = await bot.tracker.reconcile();
    expect(report.resolved).toBe(1);
    expect(bot.journal.order(left)).toMatchObject({ state: 'open' });
    expect(typesOf(events, left)).toEqual(['unknown', 'resolved']);
  });
});
