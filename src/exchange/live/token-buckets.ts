// The limiter's token buckets, charged all at once: a request takes its weight from every pool it draws on, or
// from none. Two stores: in this process (synchronous), or in Redis for a fleet (one Lua script over the pool
// keys, refilled from the Redis server's clock, so processes on different machines agree on time).
import { Redis } from 'ioredis';
import type { TimeSource } from '../../util/clock.js';

/** One pool's bucket: at most `capacity` tokens banked, `ratePerMs` added continuously. */
export interface BucketShape {
  /** Where the bucket lives (a Redis key under the store's prefix, or a map key). */
  key: string;
  capacity: number;
  ratePerMs: number;
}

/** A request's charge to one bucket. */
export interface BucketCharge {
  bucket: BucketShape;
  weight: number;
}

/** A charge not granted: the milliseconds until every bucket could hold its weight, and which were short. */
export interface Shortfall {
  waitMs: number;
  /** Bit i set: the i-th charge's bucket was short. */
  short: number;
}

/** Granted (0), or why not. */
export type ChargeResult = 0 | Shortfall;

/** A request that waits at the head of its process's queue (lower priority numbers are more urgent). */
export interface Claimant {
  id: string;
  priority: number;
}

export interface BucketStore {
  /**
   * Takes every weight of `charges`, or none; a store in this process answers synchronously. A claimant short of
   * tokens in a shared store claims them (see SCRIPT); a request with its priority but no claimant only respects claims.
   */
  charge(charges: readonly BucketCharge[], claim?: Claimant): ChargeResult | Promise<ChargeResult>;
  /** Puts each bucket in debt by what refills in `ms`: nothing passes until it has paid that back. */
  coolOff(buckets: readonly BucketShape[], ms: number): Promise<void>;
  /** The tokens each bucket holds now (negative while in debt). */
  levels(buckets: readonly BucketShape[]): Promise<number[]>;
  close(): Promise<void>;
}

/** The milliseconds until `level` tokens grow to `weight`, at least 1 (0 when they already cover it). */
function waitFor(level: number, weight: number, ratePerMs: number): number {
  return level >= weight ? 0 : Math.max(1, Math.ceil((weight - level) / ratePerMs));
}

/** Buckets of this process alone, on its clock. */
export class LocalBuckets implements BucketStore {
  private readonly state = new Map<string, { level: number; atMs: number }>();

  constructor(private readonly time: TimeSource) {}

  private level(b: BucketShape, nowMs: number): number {
    const s = this.state.get(b.key);
    return s ? Math.min(b.capacity, s.level + (nowMs - s.atMs) * b.ratePerMs) : b.capacity;
  }

  charge(charges: readonly BucketCharge[]): ChargeResult {
    const nowMs = this.time.now();
    let wait = 0;
    let short = 0;
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i]!;
      const w = waitFor(this.level(c.bucket, nowMs), c.weight, c.bucket.ratePerMs);
      if (w > 0) short |= 1 << i;
      wait = Math.max(wait, w);
    }
    if (wait > 0) return { waitMs: wait, short };
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i]!;
      this.state.set(c.bucket.key, { level: this.level(c.bucket, nowMs) - c.weight, atMs: nowMs });
    }
    return 0;
  }

  async coolOff(buckets: readonly BucketShape[], ms: number): Promise<void> {
    const nowMs = this.time.now();
    for (const b of buckets) this.state.set(b.key, { level: Math.min(this.level(b, nowMs), -b.ratePerMs * ms), atMs: nowMs });
  }

  async levels(buckets: readonly BucketShape[]): Promise<number[]> {
    const nowMs = this.time.now();
    return buckets.map((b) => this.level(b, nowMs));
  }

  async close(): Promise<void> {}
}

/**
 * KEYS: the buckets. ARGV: mode ('charge', 'cooloff', 'levels'), the cool-off in ms, the claimant and its priority,
 * then per bucket its capacity, rate per ms and weight. A bucket is a hash {l: level, t: when, in ms of the server's
 * clock}; a missing one is full, and a bucket expires once it would be full again, so idle pools leave nothing
 * behind. Charge answers 0 (every weight taken) or the ms until all would fit and a mask of the short buckets
 * (nothing taken); the others answer the levels as text.
 *
 * Claims keep a heavy request from starving while lighter ones of other processes take every token as it comes:
 * a claimant (a process's queue head) short in a bucket claims its weight there (cw, cp, ce, ci), and until the
 * claim lapses or is met, requests as urgent or less from anyone else may only take tokens beyond it. A more urgent
 * request ignores the claim; a claimant that goes away loses it after twice its wait.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local mode = ARGV[1]
local id = ARGV[3]
local prio = tonumber(ARGV[4])
local n = #KEYS
local levels, caps, rates, weights, claims = {}, {}, {}, {}, {}
local wait = 0
local mask = 0
for i = 1, n do
  caps[i] = tonumber(ARGV[3 * i + 2]); rates[i] = tonumber(ARGV[3 * i + 3]); weights[i] = tonumber(ARGV[3 * i + 4])
  local s = redis.call('HMGET', KEYS[i], 'l', 't', 'cw', 'cp', 'ce', 'ci')
  local level = caps[i]
  if s[1] then level = math.min(caps[i], tonumber(s[1]) + (now - tonumber(s[2])) * rates[i]) end
  levels[i] = level
  local held = 0
  local active = s[3] and tonumber(s[5]) > now
  claims[i] = { active = active, mine = active and s[6] == id, prio = active and tonumber(s[4]) or 0 }
  if active and s[6] ~= id and claims[i].prio <= prio then held = tonumber(s[3]) end
  if level - held < weights[i] then
    claims[i].short = true
    mask = mask + 2 ^ (i - 1)
    wait = math.max(wait, math.max(1, math.ceil((weights[i] + held - level) / rates[i])))
  end
end
local function put(i, level)
  redis.call('HSET', KEYS[i], 'l', tostring(level), 't', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil((caps[i] - level) / rates[i]) + 1000)
end
if mode == 'charge' then
  if wait > 0 then
    if id ~= '' then
      for i = 1, n do
        local c = claims[i]
        if c.short and (not c.active or c.mine or c.prio > prio) then
          put(i, levels[i])
          redis.call('HSET', KEYS[i], 'cw', weights[i], 'cp', prio, 'ce', tostring(now + 2 * wait + 200), 'ci', id)
        end
      end
    end
    return { wait, mask }
  end
  for i = 1, n do
    put(i, levels[i] - weights[i])
    if claims[i].mine then redis.call('HDEL', KEYS[i], 'cw', 'cp', 'ce', 'ci') end
  end
  return 0
end
if mode == 'cooloff' then
  for i = 1, n do
    levels[i] = math.min(levels[i], -rates[i] * tonumber(ARGV[2]))
    put(i, levels[i])
  end
end
local out = {}
for i = 1, n do out[i] = tostring(levels[i]) end
return out
`;

type Scripted = Redis & { sextantBuckets(keys: number, ...args: Array<string | number>): Promise<unknown> };

/** Buckets shared by every process that uses the same Redis and key prefix. */
export class RedisBuckets implements BucketStore {
  private readonly redis: Scripted;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    // A command unanswered in 5 s fails (a frozen Redis must not hold a request, or a stop, for ever).
    const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, commandTimeout: 5000 });
    redis.defineCommand('sextantBuckets', { lua: SCRIPT });
    // Errors reach the caller of each command; the connection's own events are not worth a crash.
    redis.on('error', () => undefined);
    this.redis = redis as Scripted;
  }

  private run(mode: string, charges: readonly BucketCharge[], cooloffMs = 0, claim?: Claimant): Promise<unknown> {
    const args: Array<string | number> = [];
    for (const c of charges) args.push(`${this.keyPrefix}:${c.bucket.key}`);
    args.push(mode, cooloffMs, claim?.id ?? '', claim?.priority ?? 0);
    for (const c of charges) args.push(c.bucket.capacity, c.bucket.ratePerMs, c.weight);
    return this.redis.sextantBuckets(charges.length, ...args);
  }

  async charge(charges: readonly BucketCharge[], claim?: Claimant): Promise<ChargeResult> {
    const out = await this.run('charge', charges, 0, claim);
    if (!Array.isArray(out)) return 0;
    return { waitMs: Number(out[0]), short: Number(out[1]) };
  }

  async coolOff(buckets: readonly BucketShape[], ms: number): Promise<void> {
    await this.run(
      'cooloff',
      buckets.map((bucket) => ({ bucket, weight: 0 })),
      ms,
    );
  }

  async levels(buckets: readonly BucketShape[]): Promise<number[]> {
    return (
      (await this.run(
        'levels',
        buckets.map((bucket) => ({ bucket, weight: 0 })),
      )) as string[]
    ).map(Number);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
