// `sextant list-symbols`: the instruments a config trades against, the venue's (read now, public endpoints S7 and
// F1) or the simulator's, with what a strategy needs of each: tick and step size, minimum size, fees.
import { Option, type Command } from 'commander';
import { loadConfig, parseConfig, type LoadedConfig } from '../../config/load.js';
import type { Instrument, Surface } from '../../domain/market.js';
import { ExchangeError } from '../../exchange/errors.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../exchange/sim/instruments.js';
import { systemClock } from '../../util/clock.js';
import { redactUrlCredentials, silentLogger } from '../../util/logger.js';
import { simulatorInstruments } from '../instrument-list.js';
import { createLiveClient, tradesSimulator } from '../kernel.js';
import type { Io, SetCode } from './io.js';

interface SymbolsOptions {
  config?: string;
  sim?: boolean;
  surface?: string;
  json?: boolean;
}

/** The instruments and where they come from: the simulator's for a config that trades it (or --sim), else the venue's. */
async function instrumentsOf(loaded: LoadedConfig, sim: boolean): Promise<{ from: string; list: Instrument[] }> {
  if (sim || tradesSimulator(loaded.config)) {
    return { from: simulatorInstruments(loaded.config).from, list: (loaded.config.sim.instruments ?? DEFAULT_INSTRUMENTS).map(toInstrument) };
  }
  const client = createLiveClient({ ...loaded, credentials: undefined }, silentLogger, systemClock);
  try {
    const [spot, futures] = await Promise.all([client.instruments('spot'), client.instruments('futures')]);
    const ex = loaded.config.exchange;
    return {
      from: `the venue's instruments (${redactUrlCredentials(ex.spotBaseUrl)} (spot), ${redactUrlCredentials(ex.futuresBaseUrl)} (futures)), read just now`,
      list: [...spot, ...futures],
    };
  } finally {
    await client.close();
  }
}

const text = (d: { toString(): string } | null) => (d === null ? '' : d.toString());

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function listSymbols(opts: SymbolsOptions, io: Io): Promise<number> {
  const loaded = opts.config ? loadConfig(opts.config) : parseConfig('{}', '(defaults)');
  let got;
  try {
    got = await instrumentsOf(loaded, opts.sim === true);
  } catch (err) {
    if (!(err instanceof ExchangeError)) throw err;
    io.err(`list-symbols: cannot read the venue's instruments: ${err.summary()} (--sim lists the simulator's)`);
    return 1;
  }
  const list = got.list
    .filter((i) => !opts.surface || i.surface === (opts.surface as Surface))
    .sort((a, b) => (a.surface === b.surface ? (a.symbol < b.symbol ? -1 : 1) : a.surface === 'spot' ? -1 : 1));
  if (opts.json) {
    io.out(
      JSON.stringify(
        list.map((i) => ({
          symbol: i.symbol,
          surface: i.surface,
          base: i.base,
          quote: i.quote,
          tickSize: text(i.tickSize),
          stepSize: text(i.stepSize),
          minSize: text(i.minSize),
          maxSize: text(i.maxSize),
          makerFeeRate: text(i.makerFeeRate),
          takerFeeRate: text(i.takerFeeRate),
          tradingEnabled: i.tradingEnabled,
        })),
        null,
        2,
      ),
    );
    return 0;
  }
  io.out(`${list.length} symbols, ${got.from}:`);
  io.out(
    table([
      ['symbol', 'surface', 'base/quote', 'tick', 'step', 'min size', 'maker fee', 'taker fee', 'trading'],
      ...list.map((i) => [
        i.symbol,
        i.surface,
        `${i.base}/${i.quote}`,
        text(i.tickSize),
        text(i.stepSize),
        text(i.minSize),
        text(i.makerFeeRate),
        text(i.takerFeeRate),
        i.tradingEnabled ? 'yes' : 'no',
      ]),
    ]),
  );
  return 0;
}

export function registerSymbols(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('list-symbols')
    .description(
      "the symbols strategies can trade, with tick size, step size, minimum size and maker/taker fee rates: the venue's (read now), or the simulator's for a config that trades it",
    )
    .option('-c, --config <file>', 'the venue (exchange.*) or simulator (sim.*) of this config; without it, the venue at its default addresses')
    .option('--sim', "the simulator's instruments")
    .addOption(new Option('--surface <surface>', 'spot or futures only').choices(['spot', 'futures']))
    .option('--json', 'as JSON')
    .action(async (opts: SymbolsOptions) => setCode(await listSymbols(opts, io)));
}
