// `sextant sim`: the simulated exchange on one port, speaking the venue's wire protocol, until SIGTERM/SIGINT.
import type { Command } from 'commander';
import { systemClock } from '../../util/clock.js';
import { createLogger } from '../../util/logger.js';
import { createSimServer } from '../kernel.js';
import { waitForStop } from '../signals.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

interface SimOptions {
  config: string;
  port?: string;
  host?: string;
  seed?: string;
}

/** A whole-number option, or `fallback` when not given. */
function wholeNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) throw new Error(`--${name} expects a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

async function sim(opts: SimOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { strategies: false });
  if (!check) return 1;
  const { loaded } = check;
  const simConfig = loaded.config.sim;
  let port: number;
  try {
    port = wholeNumber(opts.port, 'port', simConfig.port);
    simConfig.seed = wholeNumber(opts.seed, 'seed', simConfig.seed);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  const host = opts.host ?? simConfig.host;
  const logger = createLogger({ level: loaded.config.log.level, base: { app: 'sextant', cmd: 'sim' } }).child({ component: 'sim' });
  const server = createSimServer(loaded, logger, systemClock);
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (err) {
    io.err(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
    return 1;
  }
  logger.info({ url, seed: simConfig.seed, credentials: loaded.credentials ? 'from the environment' : 'demo' }, 'simulated exchange listening');
  const signal = await waitForStop();
  logger.info({ signal }, 'simulated exchange stopping');
  await server.close();
  return 0;
}

export function registerSim(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('sim')
    .description('run the simulated exchange: the venue wire protocol on one port (spot and futures)')
    .option('-p, --port <n>', 'port (config sim.port, default 8787; 0 picks a free one)')
    .option('--host <host>', 'address to bind (config sim.host, default 127.0.0.1)')
    .option('--seed <n>', 'market seed (config sim.seed)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: SimOptions) => setCode(await sim(opts, io)));
}
