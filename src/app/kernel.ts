// The composition root: the only place that chooses which exchange client and data source are wired.
import type { LoadedConfig } from '../config/load.js';
import { LiveClient } from '../exchange/live/live-client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export function createLiveClient(loaded: LoadedConfig, logger: Logger, clock: Clock): LiveClient {
  const ex = loaded.config.exchange;
  const creds = loaded.credentials;
  return new LiveClient({
    spotBaseUrl: ex.spotBaseUrl,
    futuresBaseUrl: ex.futuresBaseUrl,
    ...(creds ? { credentials: creds } : {}),
    locale: ex.locale,
    timeoutMs: ex.timeoutMs,
    retry: ex.retry,
    maxPages: ex.maxPages,
    rateLimit: {
      spot: ex.rateLimit.spot,
      futures: ex.rateLimit.futures,
      orderRequests: ex.rateLimit.orderRequests,
      usableFraction: ex.rateLimit.usableFraction,
      cooloffMs: ex.rateLimit.cooloffMs,
      ...(ex.rateLimit.redis ? { redis: ex.rateLimit.redis } : {}),
    },
    clock,
    logger,
  });
}
