// `sextant api <id>`: one endpoint called on the venue `run` would trade, its validated payload printed as JSON.
import { Option, type Command } from 'commander';
import { ENDPOINTS, ENDPOINT_IDS, isEndpointId, type EndpointId } from '../../exchange/endpoints.js';
import { ExchangeError } from '../../exchange/errors.js';
import { parseJson, stringifyJson } from '../../exchange/wire/json.js';
import type { RequestOf } from '../../exchange/wire/requests.js';
import { systemClock } from '../../util/clock.js';
import { createLogger, type LogLevel } from '../../util/logger.js';
import { openCommandVenue } from '../kernel.js';
import { createLiveClient } from '../kernel.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

interface ApiOptions {
  query: string[];
  body?: string;
  config: string;
  logLevel: LogLevel;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Builds the request parameters of `api` from --query pairs or a --body JSON text. */
export function apiParams(id: EndpointId, query: string[], body: string | undefined): Record<string, unknown> {
  const endpoint = ENDPOINTS[id];
  if (endpoint.method === 'GET') {
    if (body !== undefined) throw new Error(`${id} is a GET endpoint: pass parameters with --query k=v`);
    const params: Record<string, string> = {};
    for (const pair of query) {
      const eq = pair.indexOf('=');
      if (eq <= 0) throw new Error(`--query expects k=v, got ${JSON.stringify(pair)}`);
      params[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return params;
  }
  if (query.length > 0) throw new Error(`${id} is a POST endpoint: pass parameters with --body JSON`);
  if (body === undefined) return {};
  let parsed: unknown;
  try {
    parsed = parseJson(body);
  } catch (err) {
    throw new Error(`--body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('--body must be a JSON object');
  return parsed as Record<string, unknown>;
}

async function api(idArg: string, opts: ApiOptions, io: Io): Promise<number> {
  const id = idArg.toUpperCase();
  if (!isEndpointId(id)) {
    io.err(`unknown endpoint ${JSON.stringify(idArg)}: one of ${ENDPOINT_IDS.join(', ')}`);
    return 1;
  }
  let params: Record<string, unknown>;
  try {
    params = apiParams(id, opts.query, opts.body);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  const check = await loadForCommand(opts.config, io, { strategies: false });
  if (!check) return 1;
  const logger = createLogger({ level: opts.logLevel, fd: 2, base: { app: 'sextant', cmd: 'api' } });
  // The venue `run` would trade: for sim.embedded, a simulator started for this call (said on stderr).
  const venue = await openCommandVenue(check.loaded, logger, systemClock);
  if (venue.embedded) io.err(`sextant api: calling ${venue.where}`);
  const client = createLiveClient(venue.loaded, logger.child({ component: 'cli' }), systemClock);
  try {
    const payload = await client.rest.call(id, params as RequestOf<typeof id>);
    io.out(stringifyJson(payload, 2));
    return 0;
  } catch (err) {
    if (err instanceof ExchangeError) {
      io.err(err.summary());
      return err.category === 'bad-response' ? 2 : 1;
    }
    throw err;
  } finally {
    await client.close();
    await venue.close();
  }
}

export function registerApi(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('api')
    .description('call one endpoint by its id (S0–S15, F0–F30: `sextant plan` lists them) and print the validated payload as JSON')
    .argument('<id>', 'endpoint id')
    .option('-q, --query <k=v>', 'query parameter (GET), repeatable', collect, [])
    .option('-b, --body <json>', 'JSON body (POST)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .addOption(new Option('--log-level <level>', 'log lines on stderr (retries, warnings)').choices(LOG_LEVELS).default('silent'))
    .action(async (id: string, opts: ApiOptions) => setCode(await api(id, opts, io)));
}
