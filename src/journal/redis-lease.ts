// The account lease kept in Redis: one hash per account (holder, token) living for the lease's time to live, and a
// counter per account that only grows, so every new grant carries a larger fencing token. Each call is one Lua
// script: the check and the change are one step for Redis, and the time to live runs on Redis's clock.
import { Redis } from 'ioredis';
import type { LeaseGrant, LeaseHolder, LeaseStore } from '../domain/lease.js';
import { redactUrlCredentials } from '../util/logger.js';

// KEYS: lease hash, token counter. ARGV: holder, ttlMs. Returns the token, or the holder's name when another holds it.
// A new token is the larger of the last one + 1 and Redis's clock in ms: it still grows after Redis lost its data (a
// restart without persistence), so a journal fenced with an earlier token never refuses the next holder.
const ACQUIRE = `
local holder = redis.call('HGET', KEYS[1], 'holder')
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(redis.call('HGET', KEYS[1], 'token'))
end
if holder then return holder end
local now = redis.call('TIME')
local token = math.max(tonumber(redis.call('GET', KEYS[2]) or '0') + 1, tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000))
redis.call('SET', KEYS[2], string.format('%d', token))
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'token', string.format('%d', token))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return token`;

// KEYS: lease hash. ARGV: holder, token, ttlMs. 1 when renewed.
const RENEW = `
local v = redis.call('HMGET', KEYS[1], 'holder', 'token')
if v[1] == ARGV[1] and v[2] == ARGV[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
return 0`;

// KEYS: lease hash. ARGV: holder, token. 1 when released.
const RELEASE = `
local v = redis.call('HMGET', KEYS[1], 'holder', 'token')
if v[1] == ARGV[1] and v[2] == ARGV[2] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

export class RedisLeaseStore implements LeaseStore {
  private readonly redis: Redis;
  /** The store's address as it may be shown (no password). */
  private readonly where: string;
  private connecting: Promise<void> | undefined;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    // Commands fail fast while Redis is away (a renewal that cannot be made must say so, not wait in a queue).
    // A command unanswered in 5 s fails (a frozen Redis must not hold a renewal, a standby's wait or a stop).
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 5000, commandTimeout: 5000 });
    // Errors reach the caller through the commands; the client's own events would only repeat them.
    this.redis.on('error', () => undefined);
    this.where = redactUrlCredentials(url);
  }

  private async ready(): Promise<Redis> {
    if (this.redis.status === 'ready') return this.redis;
    if (this.redis.status === 'wait' || this.redis.status === 'end' || this.redis.status === 'close') {
      this.connecting ??= this.redis.connect().finally(() => (this.connecting = undefined));
    }
    try {
      await this.connecting;
    } catch (err) {
      throw new Error(`lease store Redis at ${this.where}: ${(err as Error).message}`);
    }
    return this.redis;
  }

  private key(account: string): string {
    return `${this.keyPrefix}:${account}`;
  }

  async acquire(account: string, holder: string, ttlMs: number): Promise<LeaseGrant | null> {
    const r = await (await this.ready()).eval(ACQUIRE, 2, this.key(account), `${this.key(account)}:token`, holder, ttlMs);
    return typeof r === 'number' ? { token: r, ttlMs } : null;
  }

  async renew(account: string, holder: string, token: number, ttlMs: number): Promise<boolean> {
    return (await (await this.ready()).eval(RENEW, 1, this.key(account), holder, String(token), ttlMs)) === 1;
  }

  async release(account: string, holder: string, token: number): Promise<void> {
    await (await this.ready()).eval(RELEASE, 1, this.key(account), holder, String(token));
  }

  async current(account: string): Promise<LeaseHolder | null> {
    const redis = await this.ready();
    const [[, fields], [, ttl]] = (await redis.multi().hmget(this.key(account), 'holder', 'token').pttl(this.key(account)).exec()) as [
      [unknown, [string | null, string | null]],
      [unknown, number],
    ];
    if (!fields[0] || !fields[1] || ttl < 0) return null;
    return { holder: fields[0], token: Number(fields[1]), ttlLeftMs: ttl };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
