// `sextant record`: the venue's polled market data written as a replay file, until a stop signal or --seconds.
import type { Command } from 'commander';
import { MarketData } from '../../data/market-data.js';
import { record } from '../../data/recorder.js';
import { systemClock } from '../../util/clock.js';
import { createLogger } from '../../util/logger.js';
import { openCommandVenue, venueName } from '../kernel.js';
import { symbolsAtVenue } from '../instrument-list.js';
import { createLiveClient } from '../kernel.js';
import { pollChoices } from '../poll-plan.js';
import { waitForStop } from '../signals.js';
import { DEFAULT_CONFIG, type Io, type SetCode } from './io.js';
import { loadForCommand } from './load-for-command.js';

interface RecordOptions {
  config: string;
  symbols?: string;
  seconds?: string;
  out: string;
}

async function recordCommand(opts: RecordOptions, io: Io): Promise<number> {
  const check = await loadForCommand(opts.config, io, { strategies: false });
  if (!check) return 1;
  const { loaded } = check;
  const symbols = opts.symbols ? opts.symbols.split(',') : [...new Set(loaded.config.strategies.flatMap((strategy) => strategy.symbols))];
  const logger = createLogger({ level: 'warn', fd: 2 });
  // The venue `run` would trade: for sim.embedded, a simulator started for the recording.
  const venue = await openCommandVenue(loaded, logger, systemClock);
  const client = createLiveClient({ ...venue.loaded, credentials: undefined }, logger, systemClock);
  try {
    // Each symbol is polled on the surface whose instrument list has it (S7 spot, F1 futures).
    const surfaces = await symbolsAtVenue('sextant record', client, symbols, venue.where, (line) => io.err(line));
    if (!surfaces) return 1;
    io.err(`sextant record: recording ${symbols.join(', ')} from ${venue.where}`);
    const data = new MarketData(client, {
      spotSymbols: surfaces.spot,
      futuresSymbols: surfaces.futures,
      polls: loaded.config.daemon.polls,
      clock: systemClock,
      logger,
      choices: pollChoices(loaded.config, surfaces.futures.length),
    });
    const timeout = opts.seconds ? { afterMs: Number(opts.seconds) * 1000, clock: systemClock } : undefined;
    const recorded = await record(
      data,
      opts.out,
      waitForStop({ timeout }).then(() => undefined),
      { header: { symbols, venue: venueName(venue), startMs: systemClock.now() } },
    );
    io.out(`${opts.out}: ${recorded} records`);
    return 0;
  } finally {
    await client.close();
    await venue.close();
  }
}

export function registerRecord(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('record')
    .description('record polled market data (tickers, last trades) for backtests; stops on SIGINT/SIGTERM or after --seconds')
    .option('-c, --config <file>', "config file (base URLs, polls, strategies' symbols)", DEFAULT_CONFIG)
    .option('--symbols <list>', "comma-separated symbols (default: the strategies' symbols)")
    .option('--seconds <n>', 'stop after this many seconds')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action(async (opts: RecordOptions) => setCode(await recordCommand(opts, io)));
}
