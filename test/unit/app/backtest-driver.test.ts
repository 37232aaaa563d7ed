// The backtest's virtual venue and replay: the polls of the polls table read from the simulator in virtual time on
// their periods (charged on the venue's meter, skipped when it refuses, answered half the round trip after the
// read), and the replay moving market events and timers in time order.
import { describe, expect, it } from '@jest/globals';
import { Replay, virtualVenue, type BacktestVenue } from '../../../src/app/backtest-driver.js';
import type { TradedSymbols } from '../../../src/app/core.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ReplayRecord } from '../../../src/domain/replay-record.js';
import { venueBudgetOf } from '../../../src/domain/venue-budget.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../src/exchange/sim/market.js';
import { MeteredClient } from '../../../src/exchange/sim/metered-client.js';
import { SimulatedExchange } from '../../../src/exchange/sim/simulated-exchange.js';
import { nextTurn, VirtualClock } from '../../../src/util/clock.js';

const SPOT = 'BTCUSDT_SPBL';
const FUT = 'cmt_btcusdt';
const POLLS = { tickersMs: 1000, ordersMs: 2000, balancesMs: 3000, positionsMs: 4000, tradesMs: 1000 };
const BOTH: TradedSymbols = { all: [FUT, SPOT], spot: [SPOT], futures: [FUT], bars: [], barSpot: [] };

/** A trade of both symbols every 500 ms from 1000 to 10000, the price one up each time. */
function everyHalfSecond(): ReplayRecord[] {
  const out: ReplayRecord[] = [];
  for (let k = 0; k <= 18; k++) for (const symbol of [SPOT, FUT]) out.push({ ts: 1000 + 500 * k, symbol, price: `${90000 + k}`, size: '0.01' });
  return out;
}

/** The venue's weights per 10 s window: `spot` and `futures` for both IP and UID pools. */
function budget(spot: number, futures: number) {
  const w = (n: number) => ({ budget: n, windowMs: 10_000 });
  return venueBudgetOf({ spot: { ip: w(spot), uid: w(spot) }, futures: { ip: w(futures), uid: w(futures) }, orderRequests: { budget: 10, windowMs: 1000 } });
}

/** The parts as the kernel builds them for a backtest. */
function venueOver(records: ReplayRecord[], opts: { latencyMs?: number; spotBudget?: number } = {}): BacktestVenue {
  const market = new ReplayMarket(DEFAULT_INSTRUMENTS, records);
  const clock = new VirtualClock(market.nextTs);
  const simulator = new SimulatedExchange(market, { spot: { USDT: '1000000', BTC: '10' }, futuresCollateral: '1000000', leverage: 10 }, undefined, clock);
  const metered = new MeteredClient(simulator, budget(opts.spotBudget ?? 100_000, 100_000), clock, 'S15');
  return virtualVenue({
    market,
    simulator,
    metered,
    clock,
    latencyMs: opts.latencyMs ?? 0,
    polls: POLLS,
    choices: { spotOpenOrders: 'S15', futuresTickers: 'F2', spotTickers: 'trade' },
    closeDelayMs: 3000,
  });
}

/** Moves the venue to `untilMs`: market events and timers in time order, a tick first at the same instant. */
function drive(venue: BacktestVenue, untilMs: number): void {
  for (;;) {
    const tTimer = venue.clock.nextAt();
    const tEvent = venue.market.nextTs;
    if (Math.min(tTimer, tEvent) > untilMs) return;
    if (tTimer < tEvent) venue.clock.runNext();
    else venue.simulator.advanceTo(tEvent);
  }
}

type Delivery = { atMs: number; deliveredAtMs: number; value: unknown };

/** Binds the venue and records what each stream delivers, and when. */
function bindAndRecord(venue: BacktestVenue, symbols: TradedSymbols) {
  const bound = venue.bind(symbols);
  const got: Record<'tickers' | 'orders' | 'balances' | 'positions', Delivery[]> = { tickers: [], orders: [], balances: [], positions: [] };
  const streams = bound.streams!;
  const record = (list: Delivery[]) => (x: { atMs: number; value: unknown }) =>
    void list.push({ atMs: x.atMs, deliveredAtMs: venue.clock.now(), value: x.value });
  streams.tickers$.subscribe(record(got.tickers));
  streams.openOrders$.subscribe(record(got.orders));
  streams.balances$.subscribe(record(got.balances));
  streams.positions$.subscribe(record(got.positions));
  return { bound, got };
}

const times = (list: Delivery[]) => list.map((x) => x.atMs);

describe('virtualVenue: polls', () => {
  it('with latency 0: every poll on its period from the first event, delivered at the read instant, each request charged', () => {
    const venue = venueOver(everyHalfSecond());
    expect(venue.startMs).toBe(1000);
    expect(venue.endMs).toBe(10_000);
    const { bound, got } = bindAndRecord(venue, BOTH);
    expect(bound.trading).toBe(venue.metered);
    drive(venue, 5000);
    expect(times(got.tickers)).toEqual([1000, 2000, 3000, 4000, 5000]);
    expect(times(got.orders)).toEqual([1000, 3000, 5000]);
    expect(times(got.balances)).toEqual([1000, 4000]);
    expect(times(got.positions)).toEqual([1000, 5000]);
    for (const list of Object.values(got)) for (const x of list) expect(x.deliveredAtMs).toBe(x.atMs);
    // Futures tickers (F2) then the spot pair's last trade (S9), as the market stood at the read.
    const tickers = got.tickers[2]!.value as Map<string, { last: Decimal }>;
    expect([...tickers.keys()]).toEqual([FUT, SPOT]);
    expect(tickers.get(SPOT)!.last.toString()).toBe('90004');
    // Requests: tickers F2 + S9 (x5), orders F5 + S15 (x3), balances S8 + F3 (x2), positions F4 (x2).
    expect(venue.metered.stats.requests).toBe(10 + 6 + 4 + 2);
    expect(venue.pollsSkipped()).toBe(0);
  });

  it('only the polls with symbols to read run: no futures symbol, no positions poll and no futures read', () => {
    const venue = venueOver(everyHalfSecond());
    const { got } = bindAndRecord(venue, { all: [SPOT], spot: [SPOT], futures: [], bars: [], barSpot: [] });
    drive(venue, 5000);
    expect(times(got.tickers)).toHaveLength(5);
    expect(got.positions).toEqual([]);
    expect([...(got.tickers[0]!.value as Map<string, unknown>).keys()]).toEqual([SPOT]);
    // Tickers S9 (x5), orders S15 (x3), balances S8 (x2).
    expect(venue.metered.stats.requests).toBe(5 + 3 + 2);
    expect(Object.keys(venue.metered.stats.weight).every((pool) => pool.startsWith('spot:'))).toBe(true);
  });

  it('with latency: read half the round trip after the poll time, answered the other half after the read, with the market of the read', () => {
    const records: ReplayRecord[] = [
      { ts: 1000, symbol: SPOT, price: '90000', size: '0.01' },
      { ts: 1007, symbol: SPOT, price: '90100', size: '0.01' },
      { ts: 3000, symbol: SPOT, price: '90200', size: '0.01' },
    ];
    const venue = venueOver(records, { latencyMs: 10 });
    const { bound, got } = bindAndRecord(venue, { all: [SPOT], spot: [SPOT], futures: [], bars: [], barSpot: [] });
    expect(bound.trading).not.toBe(venue.metered);
    drive(venue, 1009);
    expect(got.tickers).toEqual([]);
    drive(venue, 2010);
    expect(got.tickers.map((x) => [x.atMs, x.deliveredAtMs])).toEqual([
      [1005, 1010],
      [2005, 2010],
    ]);
    // Read at 1005: the trade of 1007 came after the read, before the answer.
    const lastOf = (x: Delivery) => (x.value as Map<string, { last: Decimal }>).get(SPOT)!.last.toString();
    expect(got.tickers.map(lastOf)).toEqual(['90000', '90100']);
    expect(got.balances.map((x) => [x.atMs, x.deliveredAtMs])).toEqual([[1005, 1010]]);
  });

  it('an odd round trip: out is the lower half, back the rest', () => {
    const venue = venueOver(everyHalfSecond(), { latencyMs: 7 });
    const { got } = bindAndRecord(venue, BOTH);
    drive(venue, 1007);
    expect(got.tickers.map((x) => [x.atMs, x.deliveredAtMs])).toEqual([[1003, 1007]]);
  });

  it('a poll the meter refuses is skipped (nothing delivered) and counted', () => {
    // Spot weight of 1 per window: every spot read goes over; futures reads pass.
    const venue = venueOver(everyHalfSecond(), { spotBudget: 1 });
    const { got } = bindAndRecord(venue, BOTH);
    drive(venue, 1000);
    // Tickers (S9), orders (S15) and balances (S8) each hold a spot read; positions (F4) does not.
    expect(venue.pollsSkipped()).toBe(3);
    expect(got.tickers).toEqual([]);
    expect(got.orders).toEqual([]);
    expect(got.balances).toEqual([]);
    expect(times(got.positions)).toEqual([1000]);
    // Every request of a refused poll still reached the venue and was charged: 2 + 2 + 2 + 1.
    expect(venue.metered.stats.requests).toBe(7);
    drive(venue, 2000);
    expect(venue.pollsSkipped()).toBe(4);
    expect(venue.metered.stats.rateLimited).toBeGreaterThanOrEqual(4);
  });

  it('open orders are read futures first, then spot', async () => {
    const venue = venueOver(everyHalfSecond());
    const order = (clientOid: string) => ({
      clientOid,
      side: 'buy' as const,
      kind: 'limit' as const,
      timeInForce: 'gtc' as const,
      price: Decimal.from('89100'),
      size: Decimal.from('0.01'),
    });
    expect((await venue.simulator.placeOrders('spot', SPOT, [order('spot1')]))[0]!.outcome).toBe('accepted');
    expect((await venue.simulator.placeOrders('futures', FUT, [order('fut1')]))[0]!.outcome).toBe('accepted');
    const { got } = bindAndRecord(venue, BOTH);
    drive(venue, 1000);
    expect((got.orders[0]!.value as Array<{ clientOid: string; surface: string }>).map((o) => [o.surface, o.clientOid])).toEqual([
      ['futures', 'fut1'],
      ['spot', 'spot1'],
    ]);
  });

  it('tickersNow: futures then spot, at the market now', () => {
    const venue = venueOver(everyHalfSecond());
    drive(venue, 2000);
    const now = venue.tickersNow(BOTH);
    expect([...now.keys()]).toEqual([FUT, SPOT]);
    expect(now.get(SPOT)!.last!.toString()).toBe('90002');
  });
});

describe('Replay.run', () => {
  const threeTrades: ReplayRecord[] = [1000, 2000, 3000].map((ts, k) => ({ ts, symbol: SPOT, price: `${90000 + 100 * k}`, size: '0.01' }));

  it('moves market events and timers in time order, a tick before a timer of the same instant, and stops after endAt', async () => {
    const venue = venueOver(threeTrades);
    const seen: string[] = [];
    const last = () => venue.simulator.tickerNow(SPOT)!.last!.toString();
    venue.clock.at(1500, () => seen.push(`1500 sees ${last()}`));
    venue.clock.at(2000, () => seen.push(`2000 sees ${last()}`));
    venue.clock.at(2600, () => seen.push('2600'));
    const periodic: number[] = [];
    venue.clock.every(1000, 1000, () => periodic.push(venue.clock.now()));
    await new Replay(venue, () => true).run(2500, () => undefined);
    expect(seen).toEqual(['1500 sees 90000', '2000 sees 90100']);
    expect(periodic).toEqual([1000, 2000]);
    expect(venue.clock.now()).toBe(2000);
    expect(venue.clock.nextAt()).toBe(2600);
  });

  it('ends when no market event and no timer is left', async () => {
    const venue = venueOver(threeTrades);
    const at: number[] = [];
    venue.clock.at(2500, () => at.push(venue.clock.now()));
    await new Replay(venue, () => true).run(1e12, () => undefined);
    expect(venue.clock.nextAt()).toBe(Number.POSITIVE_INFINITY);
    expect(at).toEqual([2500]);
    expect(venue.market.done).toBe(true);
    expect(venue.simulator.tickerNow(SPOT)!.last!.toString()).toBe('90200');
  });

  it('work a timer started runs its promise continuations, and wakes from virtual sleeps, before time moves on', async () => {
    const venue = venueOver(threeTrades);
    const seen: string[] = [];
    let working = 0;
    // Quiet as a backtest's: every chain of continuations waits on a virtual sleep, or is done.
    const replay = new Replay(venue, () => venue.clock.sleeping === working);
    venue.clock.at(1500, () => {
      replay.touch();
      working++;
      void (async () => {
        await Promise.resolve();
        await Promise.resolve();
        seen.push(`continued at ${venue.clock.now()}`);
        await venue.clock.sleep(300);
        seen.push(`woke at ${venue.clock.now()} seeing ${venue.simulator.tickerNow(SPOT)!.last!.toString()}`);
        working--;
      })();
    });
    venue.clock.at(2000, () => seen.push('timer at 2000'));
    await replay.run(2500, () => undefined);
    expect(seen).toEqual(['continued at 1500', 'woke at 1800 seeing 90000', 'timer at 2000']);
  });

  it('work waiting on anything but virtual time gets a turn of the event loop before time moves on; quiet work does not', async () => {
    const venue = venueOver(threeTrades);
    const seen: string[] = [];
    let done = false;
    const replay = new Replay(venue, () => done);
    venue.clock.at(1500, () => {
      replay.touch();
      void nextTurn().then(() => {
        seen.push(`turned at ${venue.clock.now()}`);
        done = true;
      });
    });
    // Quiet already: nothing is waited for, so this turn comes only after the run.
    venue.clock.at(2000, () => {
      replay.touch();
      void nextTurn().then(() => seen.push(`late turn at ${venue.clock.now()}`));
    });
    venue.clock.at(2200, () => seen.push('timer at 2200'));
    venue.clock.at(2600, () => seen.push('timer at 2600'));
    await replay.run(2500, () => undefined);
    await nextTurn();
    expect(seen).toEqual(['turned at 1500', 'timer at 2200', 'late turn at 2200']);
  });
});
