// The limiter under a flood, measured by the venue: in no interval of a window's length, aligned or not,
// does the weight that arrived exceed the budget of any pool (IP, UID, order requests).
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { LiveClient } from '../../src/exchange/live/live-client.js';
import type { RateLimiterConfig } from '../../src/exchange/live/rate-limiter.js';
import { maxInAnyWindow } from '../fixtures/budget.js';
import { FakeVenue } from '../fixtures/fake-venue.js';
import { clientFor } from '../fixtures/live-client.js';

const WINDOW_MS = 1000;
const BUDGETS = { futuresIp: 240, futuresUid: 240, spotIp: 120, spotUid: 120, orders: 10 };

function limits(redis?: RateLimiterConfig['redis']): RateLimiterConfig {
  return {
    spot: { ip: { budget: BUDGETS.spotIp, windowMs: WINDOW_MS }, uid: { budget: BUDGETS.spotUid, windowMs: WINDOW_MS } },
    futures: { ip: { budget: BUDGETS.futuresIp, windowMs: WINDOW_MS }, uid: { budget: BUDGETS.futuresUid, windowMs: WINDOW_MS } },
    orderRequests: { budget: BUDGETS.orders, windowMs: WINDOW_MS },
    usableFraction: 0.9,
    // The config's default: the venue (here, in the test runner's process) counts arrivals, which a loaded machine
    // spreads by a few hundred ms against a 1 s window.
    arrivalSpreadMs: 250,
    cooloffMs: 1000,
    ...(redis ? { redis } : {}),
  };
}

const PLACE = {
  symbol: 'cmt_btcusdt',
  orderDataList: [{ client_oid: 'sx_1', size: '0.01', type: '1' as const, order_type: '0' as const, match_price: '0' as const, price: '1' }],
};

/** A mixed flood, all submitted at once. */
function flood(c: LiveClient, scale = 1): Promise<unknown[]> {
  const jobs: Array<() => Promise<unknown>> = [];
  const times = (n: number, f: () => Promise<unknown>) => {
    for (let i = 0; i < n * scale; i++) jobs.push(f);
  };
  times(6, () => c.futures.tickers()); // 40 IP each
  times(40, () => c.futures.currentOrders({})); // 2 / 2
  times(10, () => c.futures.accounts()); // 5 / 5
  times(6, () => c.futures.placeBatch(PLACE)); // 5 / 10, order endpoint
  times(4, () => c.futures.cancelBatch({ symbol: 'cmt_btcusdt', ids: ['1'] })); // 5 / 10, order endpoint
  times(4, () =>
    c.futures.placeTrigger({ symbol: 'cmt_btcusdt', client_oid: 't1', size: '1', type: '1', match_type: '1', execute_price: '0', trigger_price: '1' }),
  );
  times(6, () => c.spot.exchangeInfo()); // 10 IP
  times(10, () => c.spot.assets()); // 5 / 5
  times(4, () => c.spot.cancelSymbol({ symbol: 'X_SPBL' })); // 5 / 8, order endpoint
  return Promise.all(jobs.map((f) => f()));
}

function expectWithinBudgets(venue: FakeVenue): void {
  const rq = venue.requests;
  const checks = [
    ['futures', 'ip', BUDGETS.futuresIp],
    ['futures', 'uid', BUDGETS.futuresUid],
    ['futures', 'orders', BUDGETS.orders],
    ['spot', 'ip', BUDGETS.spotIp],
    ['spot', 'uid', BUDGETS.spotUid],
    ['spot', 'orders', BUDGETS.orders],
  ] as const;
  const seen: Record<string, { max: number; total: number }> = {};
  for (const [surface, pool, budget] of checks) {
    const m = maxInAnyWindow(rq, surface, pool, WINDOW_MS);
    seen[`${surface}.${pool}`] = m;
    expect({ pool: `${surface}.${pool}`, max: m.max, withinBudget: m.max <= budget }).toEqual({ pool: `${surface}.${pool}`, max: m.max, withinBudget: true });
  }
  // The flood really had to be paced: more weight than one window allows.
  expect(seen['futures.ip']!.total).toBeGreaterThan(BUDGETS.futuresIp);
  expect(seen['futures.uid']!.total).toBeGreaterThan(BUDGETS.futuresUid);
}

describe('weight budgets under a flood', () => {
  let venue: FakeVenue;
  afterAll(async () => venue?.close());

  it('one process: zero windows over budget in any pool', async () => {
    venue = await FakeVenue.start();
    const c = clientFor(venue, { rateLimit: limits() });
    await flood(c);
    await c.close();
    expect(venue.requests.filter((r) => r.auth !== 'ok' && r.auth !== 'public')).toEqual([]);
    expectWithinBudgets(venue);
  });
});

describe('weight budgets shared through Redis (127.0.0.1:6379)', () => {
  const keyPrefix = `sextant-test-${process.pid}-${Date.now()}`;
  let venue: FakeVenue;
  afterAll(async () => {
    await venue?.close();
    const r = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
    await r.connect();
    const keys = await r.keys(`${keyPrefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  it('two clients with one budget: zero windows over budget combined', async () => {
    venue = await FakeVenue.start();
    const redis = { url: 'redis://127.0.0.1:6379', keyPrefix };
    const a = clientFor(venue, { rateLimit: limits(redis) });
    const b = clientFor(venue, { rateLimit: limits(redis) });
    await Promise.all([flood(a), flood(b)]);
    await Promise.all([a.close(), b.close()]);
    expectWithinBudgets(venue);
  });
});
