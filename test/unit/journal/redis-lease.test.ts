// The account lease in the real Redis: one holder at a time, a renewal only by the holder with its token, a lapsed
// lease taken with a larger token, a release only by the holder; and the daemon's hold on it (AccountLease).
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { AccountLease } from '../../../src/app/account-lease.js';
import { RedisLeaseStore } from '../../../src/journal/redis-lease.js';
import { systemClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';

const prefix = `sextant-test:lease:${process.pid}:${Date.now()}`;
const stores: RedisLeaseStore[] = [];
const store = () => {
  const s = new RedisLeaseStore('redis://127.0.0.1:6379', prefix);
  stores.push(s);
  return s;
};
afterAll(async () => {
  for (const s of stores) await s.close();
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RedisLeaseStore', () => {
  it("grants one holder at a time; renewal and release only with the holder's token; a lapsed lease goes with a larger token", async () => {
    const [one, two] = [store(), store()];
    const a = await one.acquire('acct-1', 'a', 400);
    expect(a).toEqual({ token: expect.any(Number), ttlMs: 400 });
    // Racing: nobody else gets it; the holder asking again keeps its token.
    expect(await Promise.all([two.acquire('acct-1', 'b', 400), two.acquire('acct-1', 'c', 400)])).toEqual([null, null]);
    expect(await one.acquire('acct-1', 'a', 400)).toEqual({ token: a!.token, ttlMs: 400 });
    expect(await two.current('acct-1')).toEqual({ holder: 'a', token: a!.token, ttlLeftMs: expect.any(Number) });
    expect(await two.renew('acct-1', 'b', a!.token, 400)).toBe(false);
    expect(await two.renew('acct-1', 'a', a!.token + 1, 400)).toBe(false);
    expect(await one.renew('acct-1', 'a', a!.token, 400)).toBe(true);
    // Another account is another lease.
    expect(await two.acquire('acct-2', 'b', 400)).not.toBeNull();

    await sleep(600);
    expect(await two.current('acct-1')).toBeNull();
    const b = await two.acquire('acct-1', 'b', 10_000);
    expect(b!.token).toBeGreaterThan(a!.token);
    // The old holder cannot renew or release what is no longer its.
    expect(await one.renew('acct-1', 'a', a!.token, 400)).toBe(false);
    await one.release('acct-1', 'a', a!.token);
    expect((await one.current('acct-1'))?.holder).toBe('b');
    await two.release('acct-1', 'b', b!.token);
    expect(await one.current('acct-1')).toBeNull();
    // Released and taken again: the token still grows.
    expect((await one.acquire('acct-1', 'a', 400))!.token).toBeGreaterThan(b!.token);
  });

  it('a store that cannot reach Redis says where, without the password', async () => {
    const s = new RedisLeaseStore('redis://:hunter2-secret@127.0.0.1:1', prefix);
    stores.push(s);
    const err = await s.acquire('acct', 'a', 1000).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/lease store Redis at redis:\/\/.*127\.0\.0\.1:1/);
    expect(err?.message).not.toContain('hunter2-secret');
  });
});

describe('AccountLease', () => {
  it('a standby takes the lease once its holder stops renewing; the holder that lost it is told once', async () => {
    const account = 'acct-keep';
    const active = new AccountLease({ store: store(), account, holder: 'active', ttlMs: 1000, clock: systemClock, logger: silentLogger });
    const standby = new AccountLease({ store: store(), account, holder: 'standby', ttlMs: 1000, clock: systemClock, logger: silentLogger });
    const never = new Promise<void>(() => undefined);
    const t1 = await active.take(never);
    const lost: string[] = [];
    active.keep((reason) => lost.push(reason));
    expect(active.held()).toBe(true);
    const waiting: Array<string | undefined> = [];
    let taken: number | undefined;
    const standing = standby.take(never, (h) => waiting.push(h?.holder)).then((t) => (taken = t));
    // Renewed past several times to live, the standby still waits.
    await sleep(2500);
    expect({ taken, lost, held: active.held(), seen: waiting.some((h) => h?.startsWith('active:')) }).toEqual({
      taken: undefined,
      lost: [],
      held: true,
      seen: true,
    });
    // The holder gives up: released, the standby has it at its next ask, with a larger token.
    await active.close();
    await standing;
    expect(taken).toBeGreaterThan(t1!);
    expect(active.held()).toBe(false);

    // A holder whose lease another took (the store refuses the renewal) learns it once and stops holding.
    const stale = new AccountLease({ store: store(), account: 'acct-stale', holder: 'old', ttlMs: 1000, clock: systemClock, logger: silentLogger });
    await stale.take(never);
    const told: string[] = [];
    stale.keep((reason) => told.push(reason));
    // Its key is taken over behind its back (as after a lapse).
    const redis = new Redis('redis://127.0.0.1:6379');
    await redis.del(`${prefix}:acct-stale`);
    redis.disconnect();
    await store().acquire('acct-stale', 'new', 10_000);
    await sleep(800);
    expect({ told: told.length, held: stale.held() }).toEqual({ told: 1, held: false });
    expect(told[0]).toMatch(/refused the renewal/);
    await stale.close();
    await standby.close();
  });

  it('stop ends the wait of a standby', async () => {
    const holder = new AccountLease({ store: store(), account: 'acct-stop', holder: 'h', ttlMs: 5000, clock: systemClock, logger: silentLogger });
    await holder.take(new Promise(() => undefined));
    const standby = new AccountLease({ store: store(), account: 'acct-stop', holder: 's', ttlMs: 5000, clock: systemClock, logger: silentLogger });
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    const waited = standby.take(stopped);
    await sleep(200);
    stop();
    expect(await waited).toBeUndefined();
    await holder.close();
    await standby.close();
  });
});
