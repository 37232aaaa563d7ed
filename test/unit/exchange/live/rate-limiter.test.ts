// The limiter's plan and token buckets: the most any interval of a window's length can see, all-or-nothing charges
// (in this process and on the real Redis at 127.0.0.1:6379), pools keyed by egress and account digest, and a
// request sent with no scheduling hop when its tokens are there.
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { accountDigest } from '../../../../src/domain/credentials.js';
import { ENDPOINTS } from '../../../../src/exchange/endpoints.js';
import { RateLimiter, planBucket, type RateLimiterConfig } from '../../../../src/exchange/live/rate-limiter.js';
import { LocalBuckets, RedisBuckets, type BucketShape, type ChargeResult } from '../../../../src/exchange/live/token-buckets.js';
import { ManualClock, systemClock } from '../../../../src/util/clock.js';
import { silentLogger } from '../../../../src/util/logger.js';

const waitOf = (result: ChargeResult): number => (result === 0 ? 0 : result.waitMs);

const LIMITS: RateLimiterConfig = {
  spot: { ip: { budget: 500, windowMs: 10_000 }, uid: { budget: 500, windowMs: 10_000 } },
  futures: { ip: { budget: 1000, windowMs: 10_000 }, uid: { budget: 1000, windowMs: 10_000 } },
  orderRequests: { budget: 10, windowMs: 1000 },
  usableFraction: 0.9,
  cooloffMs: 1000,
};

describe('planBucket', () => {
  it('plans burst + refill = the usable budget, the burst at least the heaviest request', () => {
    expect(planBucket({ budget: 1000, windowMs: 10_000 }, 0.9, 40)).toEqual({ burst: 90, refill: 810, windowMs: 10_000, worstCase: 900, atVenue: 900 });
    expect(planBucket({ budget: 100, windowMs: 1000 }, 1, 40)).toEqual({ burst: 40, refill: 60, windowMs: 1000, worstCase: 100, atVenue: 100 });
    expect(() => planBucket({ budget: 40, windowMs: 1000 }, 1, 40)).toThrow(RangeError);
  });

  it('with arrivals spread by up to S ms, refills slower: burst + refill over a window plus S stays the usable budget', () => {
    // The venue's 10 order requests a second, 9 usable: 8 refilled per 1.25 s, 6.4 per second.
    const orders = planBucket({ budget: 10, windowMs: 1000 }, 0.9, 1, 250);
    expect(orders).toEqual({ burst: 1, refill: 6.4, windowMs: 1000, worstCase: 7.4, atVenue: 9 });
    expect(orders.burst + (orders.refill * (orders.windowMs + 250)) / orders.windowMs).toBeCloseTo(9, 9);
    // A 10 s weight window loses 2.4 % to the same spread.
    expect(planBucket({ budget: 1000, windowMs: 10_000 }, 0.9, 40, 250)).toEqual({
      burst: 90,
      refill: 790.243,
      windowMs: 10_000,
      worstCase: 880.243,
      atVenue: 900,
    });
  });
});

describe('local token buckets', () => {
  const a: BucketShape = { key: 'a', capacity: 10, ratePerMs: 0.01 };
  const b: BucketShape = { key: 'b', capacity: 5, ratePerMs: 0.001 };

  it('takes every weight of a charge or none, and says how long until all would fit', async () => {
    const clock = new ManualClock(1_000_000);
    const store = new LocalBuckets(clock);
    expect(
      store.charge([
        { bucket: a, weight: 4 },
        { bucket: b, weight: 4 },
      ]),
    ).toBe(0);
    // b holds 1: short by 2, at 0.001 per ms that is 2000 ms; a is left as it was.
    expect(
      store.charge([
        { bucket: a, weight: 2 },
        { bucket: b, weight: 3 },
      ]),
    ).toEqual({ waitMs: 2000, short: 0b10 });
    expect(await store.levels([a, b])).toEqual([6, 1]);
    clock.advance(1999);
    expect(
      store.charge([
        { bucket: a, weight: 2 },
        { bucket: b, weight: 3 },
      ]),
    ).toEqual({ waitMs: 1, short: 0b10 });
    clock.advance(1);
    expect(
      store.charge([
        { bucket: a, weight: 2 },
        { bucket: b, weight: 3 },
      ]),
    ).toBe(0);
    expect(await store.levels([a, b])).toEqual([8, 0]);
  });

  it('a cool-off puts the bucket in debt by what refills in its length', async () => {
    const clock = new ManualClock(0);
    const store = new LocalBuckets(clock);
    await store.coolOff([a], 500);
    expect(await store.levels([a])).toEqual([-5]);
    expect(store.charge([{ bucket: a, weight: 1 }])).toEqual({ waitMs: 600, short: 1 });
  });

  it('greedy charging never starts more than burst + refill in any interval of a window, aligned or not', () => {
    const plan = planBucket({ budget: 200, windowMs: 1000 }, 0.9, 10);
    const bucket = { key: 'p', capacity: plan.burst, ratePerMs: plan.refill / plan.windowMs };
    const clock = new ManualClock(0);
    const store = new LocalBuckets(clock);
    const started: Array<{ t: number; w: number }> = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let t = 0; t < 20_000; t += 1 + Math.floor(next() * 3)) {
      clock.set(t);
      const w = 1 + Math.floor(next() * 10);
      if (store.charge([{ bucket, weight: w }]) === 0) started.push({ t, w });
    }
    let most = 0;
    let sum = 0;
    let j = 0;
    for (let i = 0; i < started.length; i++) {
      sum += started[i]!.w;
      while (started[i]!.t - started[j]!.t >= plan.windowMs) sum -= started[j++]!.w;
      most = Math.max(most, sum);
    }
    expect(most).toBeLessThanOrEqual(plan.worstCase);
    // Saturated: the busiest window is within one request of the plan.
    expect(most).toBeGreaterThan(plan.worstCase - 10);
  });
});

describe('the limiter in this process', () => {
  it('sends at once, with no scheduling hop, when the tokens are there', async () => {
    const limiter = new RateLimiter(LIMITS, silentLogger, { clock: systemClock, account: 'acct' });
    let sent = false;
    const done = limiter.schedule(ENDPOINTS.F6, async () => {
      sent = true;
    });
    expect(sent).toBe(true);
    await done;
    await limiter.close();
  });

  it('a request short of tokens waits in the queue and goes when they have refilled', async () => {
    const limiter = new RateLimiter({ ...LIMITS, orderRequests: { budget: 2, windowMs: 200 }, usableFraction: 1 }, silentLogger, {
      clock: systemClock,
      account: 'acct',
    });
    const sent: number[] = [];
    // The order pool: burst 1, refilled 1 per 200 ms.
    await Promise.all([0, 1].map(() => limiter.schedule(ENDPOINTS.F6, async () => sent.push(performance.now()))));
    expect(sent).toHaveLength(2);
    expect(sent[1]! - sent[0]!).toBeGreaterThanOrEqual(198);
    await limiter.close();
  });
});

describe('token buckets on Redis (127.0.0.1:6379)', () => {
  const prefix = `sextant-test-buckets-${process.pid}-${Date.now()}`;
  const admin = new Redis({ host: '127.0.0.1', port: 6379 });
  afterAll(async () => {
    const keys = await admin.keys(`${prefix}:*`);
    if (keys.length) await admin.del(...keys);
    admin.disconnect();
  });

  it('two stores on one prefix share the buckets, all or nothing', async () => {
    const one = new RedisBuckets('redis://127.0.0.1:6379', prefix);
    const two = new RedisBuckets('redis://127.0.0.1:6379', prefix);
    // Refilled at one token per 100 s: nothing refills noticeably during the test.
    const a = { key: 'x:a', capacity: 10, ratePerMs: 0.00001 };
    const b = { key: 'x:b', capacity: 10, ratePerMs: 0.00001 };
    expect(await one.charge([{ bucket: a, weight: 8 }])).toBe(0);
    // b has room but a has not: neither is charged.
    expect(
      await two.charge([
        { bucket: a, weight: 5 },
        { bucket: b, weight: 5 },
      ]),
    ).toEqual({ waitMs: expect.any(Number), short: 0b01 });
    expect(
      waitOf(
        await two.charge([
          { bucket: a, weight: 5 },
          { bucket: b, weight: 5 },
        ]),
      ),
    ).toBeGreaterThan(200_000);
    const [la, lb] = await one.levels([a, b]);
    expect(la).toBeCloseTo(2, 1);
    expect(lb).toBeCloseTo(10, 1);
    expect(
      await two.charge([
        { bucket: a, weight: 2 },
        { bucket: b, weight: 5 },
      ]),
    ).toBe(0);
    expect((await one.levels([a, b])).map((l) => Math.round(l))).toEqual([0, 5]);
    await two.coolOff([b], 1_000_000);
    expect(Math.round((await one.levels([b]))[0]!)).toBe(-10);
    // A bucket expires once it would be full again.
    expect(await admin.pttl(`${prefix}:x:a`)).toBeGreaterThan(900_000);
    await Promise.all([one.close(), two.close()]);
  });

  it('a head of queue short of tokens claims them: requests as urgent from others wait, more urgent ones do not', async () => {
    const one = new RedisBuckets('redis://127.0.0.1:6379', prefix);
    const two = new RedisBuckets('redis://127.0.0.1:6379', prefix);
    const c = { key: 'x:c', capacity: 10, ratePerMs: 0.00001 };
    expect(await one.charge([{ bucket: c, weight: 7 }])).toBe(0);
    // 3 left: a read of weight 8 at the head of one's queue claims them.
    expect(waitOf(await one.charge([{ bucket: c, weight: 8 }], { id: 'head-1', priority: 6 }))).toBeGreaterThan(0);
    expect(waitOf(await two.charge([{ bucket: c, weight: 1 }], { id: '', priority: 6 }))).toBeGreaterThan(0);
    expect(waitOf(await two.charge([{ bucket: c, weight: 1 }], { id: 'head-2', priority: 6 }))).toBeGreaterThan(0);
    // A cancel goes past the read's claim.
    expect(await two.charge([{ bucket: c, weight: 1 }], { id: '', priority: 1 })).toBe(0);
    expect(Math.round((await one.levels([c]))[0]!)).toBe(2);
    await Promise.all([one.close(), two.close()]);
  });

  it('keys IP pools by the egress and UID pools by the account digest, never by the key', async () => {
    const apiKey = 'k3y-that-must-not-appear';
    const limiter = new RateLimiter({ ...LIMITS, egress: 'egress-1', redis: { url: 'redis://127.0.0.1:6379', keyPrefix: prefix } }, silentLogger, {
      clock: systemClock,
      account: accountDigest(apiKey),
    });
    await limiter.schedule(ENDPOINTS.F6, async () => undefined);
    const keys = (await admin.keys(`${prefix}:*`)).filter((k) => !k.startsWith(`${prefix}:x:`)).sort();
    const digest = accountDigest(apiKey);
    expect(keys).toEqual([`${prefix}:ip:egress-1:futures`, `${prefix}:orders:${digest}:futures`, `${prefix}:uid:${digest}:futures`]);
    expect(keys.join(' ')).not.toContain(apiKey);
    await limiter.close();
  });
});
