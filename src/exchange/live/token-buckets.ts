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

/** Granted (0) or the milliseconds until every bucket of the charge could hold its weight (> 0). */
export type ChargeResult = number;

export interface BucketStore {
  /** Takes every weight of `charges`, or none; a store in this process answers synchronously. */
  charge(charges: readonly BucketCharge[]): ChargeResult | Promise<ChargeResult>;
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
    for (let i = 0; i < charges.length; i++) {
      const c = charges[i]!;
      wait = Math.max(wait, waitFor(this.level(c.bucket, nowMs), c.weight, c.bucket.ratePerMs));
    }
    if (wait > 0) return wait;
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
 * KEYS: the buckets. ARGV: mode ('charge', 'cooloff', 'levels'), the cool-off in ms, then per bucket its capacity,
 * rate per ms and weight. A bucket is a hash {l: level, t: when, in ms of the server's clock}; a missing one is
 * full, and a bucket expires once it would be full again, so idle pools leave nothing behind. Charge answers 0
 * (every weight taken) or the ms until all would fit (nothing taken); the others answer the levels as text.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local mode = ARGV[1]
local levels = {}
local wait = 0
for i = 1, #KEYS do
  local cap = tonumber(ARGV[3 * i]); local rate = tonumber(ARGV[3 * i + 1]); local weight = tonumber(ARGV[3 * i + 2])
  local s = redis.call('HMGET', KEYS[i], 'l', 't')
  local level = cap
  if s[1] then level = math.min(cap, tonumber(s[1]) + (now - tonumber(s[2])) * rate) end
  levels[i] = level
  if level < weight then wait = math.max(wait, math.max(1, math.ceil((weight - level) / rate))) end
end
local function put(i, level, cap, rate)
  redis.call('HSET', KEYS[i], 'l', tostring(level), 't', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil((cap - level) / rate) + 1000)
end
if mode == 'charge' then
  if wait > 0 then return wait end
  for i = 1, #KEYS do put(i, levels[i] - tonumber(ARGV[3 * i + 2]), tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])) end
  return 0
end
if mode == 'cooloff' then
  for i = 1, #KEYS do
    local rate = tonumber(ARGV[3 * i + 1])
    local level = math.min(levels[i], -rate * tonumber(ARGV[2]))
    levels[i] = level
    put(i, level, tonumber(ARGV[3 * i]), rate)
  end
end
local out = {}
for i = 1, #KEYS do out[i] = tostring(levels[i]) end
return out
`;

type Scripted = Redis & { sextantBuckets(keys: number, ...args: Array<string | number>): Promise<unknown> };

/** Buckets shared by every process that uses the same Redis and key prefix. */
export class RedisBuckets implements BucketStore {
  private readonly redis: Scripted;

  constructor(url: string, private readonly keyPrefix: string) {
    const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
    redis.defineCommand('sextantBuckets', { lua: SCRIPT });
    // Errors reach the caller of each command; the connection's own events are not worth a crash.
    redis.on('error', () => undefined);
    this.redis = redis as Scripted;
  }

  private run(mode: string, charges: readonly BucketCharge[], cooloffMs = 0): Promise<unknown> {
    const args: Array<string | number> = [];
    for (const c of charges) args.push(`${this.keyPrefix}:${c.bucket.key}`);
    args.push(mode, cooloffMs);
    for (const c of charges) args.push(c.bucket.capacity, c.bucket.ratePerMs, c.weight);
    return this.redis.sextantBuckets(charges.length, ...args);
  }

  async charge(charges: readonly BucketCharge[]): Promise<ChargeResult> {
    return Number(await this.run('charge', charges));
  }

  async coolOff(buckets: readonly BucketShape[], ms: number): Promise<void> {
    await this.run('cooloff', buckets.map((bucket) => ({ bucket, weight: 0 })), ms);
  }

  async levels(buckets: readonly BucketShape[]): Promise<number[]> {
    return ((await this.run('levels', buckets.map((bucket) => ({ bucket, weight: 0 })))) as string[]).map(Number);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
