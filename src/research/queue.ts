// The Redis job queue both ends share (BullMQ): its name and key prefix, the connection, what a queued job carries,
// and a first look at whether Redis answers at all.
import type { ConnectionOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { redactUrlCredentials } from '../util/secrets.js';
import type { BacktestJob } from './jobs.js';

/** Where the jobs go: the Redis server, the queue's name, the prefix of its keys. */
export interface QueueAddress {
  /** redis://[user:password@]host:port[/db] */
  redis: string;
  /** Default: DEFAULT_QUEUE. */
  queue?: string;
  /** Default: DEFAULT_PREFIX. */
  prefix?: string;
}

export const DEFAULT_QUEUE = 'sextant-backtests';
export const DEFAULT_PREFIX = 'sextant';

/** A job on the queue: the backtest job and the batch it belongs to (results are collected by batch). */
export interface QueuedJob {
  batch: string;
  job: BacktestJob;
}

/** The name BullMQ knows the queued jobs by. */
export const JOB_NAME = 'backtest';

/** BullMQ's connection options for the address (a worker's blocking reads must not give up: no retry limit). */
export function connectionOf(address: QueueAddress): ConnectionOptions {
  return { url: address.redis, maxRetriesPerRequest: null };
}

/** The queue's name and prefix, defaults applied; a name with ':' is refused as BullMQ would, but said plainly. */
export function queueNames(address: QueueAddress): { queue: string; prefix: string } {
  const queue = address.queue ?? DEFAULT_QUEUE;
  const prefix = address.prefix ?? DEFAULT_PREFIX;
  if (!/^[A-Za-z0-9._-]+$/.test(queue)) throw new Error(`queue name ${JSON.stringify(queue)}: expected letters, digits, '.', '_' or '-'`);
  return { queue, prefix };
}

/**
 * Resolves once Redis answers a PING at the address; rejects, saying so, when it does not within `timeoutMs` (the
 * queue's own connections retry for ever, and cannot be closed before they have connected once).
 */
export async function checkRedis(address: QueueAddress, timeoutMs: number): Promise<void> {
  const redis = new Redis(address.redis, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  // The client's own error says why (refused, unknown host, bad password); the rejection only that it closed.
  let cause: Error | undefined;
  redis.on('error', (err: Error) => (cause ??= err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`Redis at ${redactUrlCredentials(address.redis)} does not answer: ${(cause ?? (err as Error)).message}`);
  } finally {
    redis.disconnect();
  }
}
