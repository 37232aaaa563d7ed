// `sextant plan`: the config checked as `config check` does, then the venue, endpoints, weights and rate-limit plan.
import type { Command } from 'commander';
import { hostname } from 'node:os';
import type { LoadedConfig } from '../../config/load.js';
import { ENDPOINTS, ENDPOINT_IDS, maxWeights } from '../../exchange/endpoints.js';
import { planBucket } from '../../exchange/live/rate-limiter.js';
import { systemClock } from '../../util/clock.js';
import { createLogger, redactUrlCredentials } from '../../util/logger.js';
import { describeCredentials, describeVenue } from '../kernel.js';
import { describePollingPlan } from '../poll-plan.js';
import { fetchInstruments, knownInstruments } from '../instrument-list.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

async function plan(opts: { config: string; offline?: boolean }, io: Io): Promise<number> {
  // The venue's instrument list is read (and cached) unless --offline: symbols are checked against what `run` would see.
  const logger = createLogger({ level: 'silent' });
  const instrumentsFor = (loaded: LoadedConfig) => (opts.offline ? knownInstruments(loaded.config) : fetchInstruments(loaded, logger, systemClock));
  const check = await loadForCommand(opts.config, io, { instrumentsFor });
  if (!check) return 1;
  const { loaded } = check;
  const { config } = loaded;
  io.out(`sextant — ${config.mode} configuration ${loaded.file} is valid`);
  for (const line of describeVenue(loaded)) io.out(line);
  io.out(`  credentials: ${describeCredentials(loaded)}`);
  for (const note of check.notes) io.out(`  ${note}`);
  io.out('');
  io.out('Endpoints (weights IP/UID):');
  for (const id of ENDPOINT_IDS) {
    const endpoint = ENDPOINTS[id];
    io.out(
      `  ${id.padEnd(3)} ${endpoint.method.padEnd(4)} ${endpoint.path.padEnd(42)} ${String(endpoint.weight.ip).padStart(3)}/${String(endpoint.weight.uid).padEnd(3)} ${endpoint.auth ? 'signed' : 'public'}`,
    );
  }
  io.out('');
  io.out('Polls (what the daemon reads on its own, per cycle):');
  for (const line of describePollingPlan(loaded)) io.out(line);
  io.out('');
  io.out(
    `Rate-limit plan (token buckets; worst case charged in any window, and at the venue with arrivals spread by up to ${config.exchange.rateLimit.arrivalSpreadMs} ms):`,
  );
  const rateLimit = config.exchange.rateLimit;
  for (const surface of ['spot', 'futures'] as const) {
    const weights = maxWeights(surface);
    for (const [pool, label, max] of [
      ['ip', 'IP ', weights.ip],
      ['uid', 'UID', weights.uid],
    ] as const) {
      const b = planBucket(rateLimit[surface][pool], rateLimit.usableFraction, max, rateLimit.arrivalSpreadMs);
      io.out(
        `  ${surface.padEnd(8)} ${label} ${b.worstCase}/${rateLimit[surface][pool].budget} per ${b.windowMs} ms, ${b.atVenue} at the venue (burst ${b.burst}, refilled ${b.refill} per window)`,
      );
    }
  }
  const orders = planBucket(rateLimit.orderRequests, rateLimit.usableFraction, 1, rateLimit.arrivalSpreadMs);
  io.out(
    `  order endpoints ${orders.worstCase}/${rateLimit.orderRequests.budget} requests per ${rateLimit.orderRequests.windowMs} ms per account, ${orders.atVenue} at the venue; cool-off after a 429: ${rateLimit.cooloffMs} ms`,
  );
  io.out(
    `  IP pools keyed by egress ${rateLimit.egress ?? `${hostname()} (host name)`}; UID and order pools by account; ${rateLimit.redis ? `shared through ${redactUrlCredentials(rateLimit.redis.url)} (key prefix ${rateLimit.redis.keyPrefix})` : 'this process alone (no exchange.rateLimit.redis)'}`,
  );
  io.out(
    `  fleet: planned for ${rateLimit.processes} process(es); each one's polls may use pollShare ${config.daemon.pollShare} ÷ ${rateLimit.processes} of every usable budget`,
  );
  io.out('');
  io.out('Try: npx sextant api F2 --config FILE   (any endpoint of the table above)');
  return 0;
}

export function registerPlan(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('plan')
    .description(
      "check the configuration as `config check` does and show what the daemon will use: the venue, endpoints, weights, rate-limit plan (reads and caches the venue's instrument list)",
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .option('--offline', "do not read the venue's instrument list: check symbols against the cached one")
    .action(async (opts: { config: string; offline?: boolean }) => setCode(await plan(opts, io)));
}
