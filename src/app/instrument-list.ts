// The instrument list symbols are checked against: the simulator's, the venue's read now, or its cache.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { LoadedConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { Surface } from '../domain/market.js';
import type { ExchangeClient } from '../exchange/client.js';
import { ExchangeError } from '../exchange/errors.js';
import { DEFAULT_INSTRUMENTS } from '../exchange/sim/instruments.js';
import type { Clock } from '../util/clock.js';
import { redactUrlCredentials, type Logger } from '../util/logger.js';
import { createLiveClient, tradesSimulator } from './kernel.js';

/** A list to check symbols against, and what it is (said in every message that uses it). */
export interface InstrumentList {
  symbols: ReadonlySet<string>;
  from: string;
  /** Said once beside the check: how fresh the list is, or why a fresher one could not be had. */
  note?: string;
}

/** No list: symbols cannot be checked, and `why` says so plainly. */
export interface NoInstrumentList {
  symbols?: undefined;
  why: string;
}

export type SymbolSource = InstrumentList | NoInstrumentList;

/** The simulator's instruments: sim.instruments, or the built-in list. */
export function simulatorInstruments(config: Config): InstrumentList {
  const specs = config.sim.instruments ?? DEFAULT_INSTRUMENTS;
  return {
    symbols: new Set(specs.map((s) => s.symbol)),
    from: `the simulator's instruments (${config.sim.instruments ? 'sim.instruments' : 'its built-in list'})`,
  };
}

/** The venue a cached list belongs to: its base URLs as they may be shown. */
function venueName(config: Config): string {
  return `${redactUrlCredentials(config.exchange.spotBaseUrl)} ${redactUrlCredentials(config.exchange.futuresBaseUrl)}`;
}

/** Where the venue's list is cached: beside the journal's file (none for a journal in memory or in PostgreSQL). */
export function instrumentCachePath(config: Config): string | undefined {
  const path = config.journal.path;
  return path === undefined || path === ':memory:' ? undefined : `${path}.instruments.json`;
}

interface InstrumentCache {
  venue: string;
  fetchedAt: string;
  symbols: Record<Surface, string[]>;
}

function isCache(x: unknown): x is InstrumentCache {
  const c = x as Partial<InstrumentCache> | null;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  return (
    typeof c === 'object' &&
    c !== null &&
    typeof c.venue === 'string' &&
    typeof c.fetchedAt === 'string' &&
    typeof c.symbols === 'object' &&
    c.symbols !== null &&
    strings(c.symbols.spot) &&
    strings(c.symbols.futures)
  );
}

/** Writes the list just read from the venue (replacing the file whole: a reader never sees half of it). */
export function writeInstrumentCache(config: Config, symbols: Record<Surface, string[]>, nowMs: number): void {
  const file = instrumentCachePath(config);
  if (!file) return;
  const dir = dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const body: InstrumentCache = { venue: venueName(config), fetchedAt: new Date(nowMs).toISOString(), symbols };
  writeFileSync(`${file}.tmp`, `${JSON.stringify(body, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

/** The cached list of the configured venue, or why there is none. */
export function readInstrumentCache(config: Config): SymbolSource {
  const file = instrumentCachePath(config);
  const venue = venueName(config);
  const howToGet = '`sextant plan` or `sextant run` with access to the venue caches its list';
  if (!file) return { why: `no instrument list of ${venue} is available (the journal is in memory, so none is cached): symbols were not checked` };
  if (!existsSync(file)) return { why: `no instrument list of ${venue} is available (none cached at ${file}; ${howToGet}): symbols were not checked` };
  let cached: unknown;
  try {
    cached = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    cached = undefined;
  }
  if (!isCache(cached)) return { why: `the cached instrument list ${file} is unreadable (${howToGet} again): symbols were not checked` };
  if (cached.venue !== venue) return { why: `the cached instrument list ${file} is of another venue (${cached.venue}): symbols were not checked` };
  return {
    symbols: new Set([...cached.symbols.spot, ...cached.symbols.futures]),
    // Said in every refusal: a symbol listed since the cache was written is refused until it is refreshed.
    from: `the venue's instruments as cached in ${file} at ${cached.fetchedAt} (\`sextant plan\` refreshes it)`,
    note: `cached at ${cached.fetchedAt}: a symbol listed since is not in it`,
  };
}

/** The list to check against without asking the venue: the simulator's, or the cached one. */
export function knownInstruments(config: Config): SymbolSource {
  return tradesSimulator(config) ? simulatorInstruments(config) : readInstrumentCache(config);
}

/** The venue's instruments of both surfaces, read now (public endpoints S7 and F1). */
export async function readVenueInstruments(client: Pick<ExchangeClient, 'instruments'>): Promise<Record<Surface, string[]>> {
  const symbolsOf = async (surface: Surface) => (await client.instruments(surface)).map((instrument) => instrument.symbol);
  return { spot: await symbolsOf('spot'), futures: await symbolsOf('futures') };
}

/** Symbols by the surface whose list has them; `unknown`: in neither list. */
export function bySurface(symbols: readonly string[], listed: Record<Surface, readonly string[]>): Record<Surface | 'unknown', string[]> {
  const surfaceOf = (symbol: string): Surface | 'unknown' => (listed.spot.includes(symbol) ? 'spot' : listed.futures.includes(symbol) ? 'futures' : 'unknown');
  return {
    spot: symbols.filter((symbol) => surfaceOf(symbol) === 'spot'),
    futures: symbols.filter((symbol) => surfaceOf(symbol) === 'futures'),
    unknown: symbols.filter((symbol) => surfaceOf(symbol) === 'unknown'),
  };
}

/**
 * Reads the venue's instruments now (public endpoints S7 and F1) and caches them; when the venue cannot be read,
 * the cached list, with the reason said. The simulator's list when the config trades it (nothing is asked).
 */
export async function fetchInstruments(loaded: LoadedConfig, logger: Logger, clock: Clock): Promise<SymbolSource> {
  if (tradesSimulator(loaded.config)) return simulatorInstruments(loaded.config);
  const client = createLiveClient({ ...loaded, credentials: undefined }, logger, clock);
  try {
    const symbols = await readVenueInstruments(client);
    writeInstrumentCache(loaded.config, symbols, clock.now());
    return { symbols: new Set([...symbols.spot, ...symbols.futures]), from: `the venue's instruments (${venueName(loaded.config)}), read just now` };
  } catch (err) {
    const cached = readInstrumentCache(loaded.config);
    const failed = `the venue's instruments could not be read (${(err as Error).message})`;
    return cached.symbols ? { ...cached, note: `${failed}; ${cached.note}` } : { why: `${failed}, and ${cached.why}` };
  } finally {
    await client.close();
  }
}

/**
 * The symbols a command was given, by the surface whose instrument list holds them (S7 spot, F1 futures), read from
 * the venue at `where`; undefined, with the reasons told to `err` as `<command>: …` lines, when the venue cannot be
 * read or does not list a symbol.
 */
export async function symbolsAtVenue(
  command: string,
  client: Pick<ExchangeClient, 'instruments'>,
  symbols: readonly string[],
  where: string,
  err: (line: string) => void,
): Promise<Record<Surface, string[]> | undefined> {
  let surfaces: Record<Surface | 'unknown', string[]>;
  try {
    surfaces = bySurface(symbols, await readVenueInstruments(client));
  } catch (e) {
    if (!(e instanceof ExchangeError)) throw e;
    err(`${command}: cannot read the instruments of ${where}: ${e.summary()}`);
    return undefined;
  }
  for (const symbol of surfaces.unknown) err(`${command}: unknown symbol ${JSON.stringify(symbol)}: not among the instruments of ${where}`);
  return surfaces.unknown.length ? undefined : { spot: surfaces.spot, futures: surfaces.futures };
}
