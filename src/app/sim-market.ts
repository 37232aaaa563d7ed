// The simulator's market: a seeded synthetic one, or recorded data replayed from files (through their cache).
import type { LoadedConfig } from '../config/load.js';
import type { SimConfig } from '../config/schema.js';
import { openTickFeed, type TickFeedOptions } from '../data/tick-feed.js';
import { DEFAULT_INSTRUMENTS, type SimInstrumentSpec } from '../exchange/sim/instruments.js';
import { ReplayMarket, SyntheticMarket, type MarketSource } from '../exchange/sim/market.js';

export function simSpecs(sim: SimConfig): SimInstrumentSpec[] {
  return sim.instruments ?? DEFAULT_INSTRUMENTS;
}

/** The records of data files (several: merged in time order) as the replay of a market of `specs`. */
export function replayMarket(specs: SimInstrumentSpec[], data: string | readonly string[], opts: TickFeedOptions): ReplayMarket {
  const market = new ReplayMarket(specs);
  market.replay(openTickFeed(data, market.units, opts));
  return market;
}

/**
 * Builds (or finds current) the cache of every data file a backtest of `dataFile` (default: the config's) reads:
 * called once before the runs of a sweep or an optimisation start together, so they do not each build it.
 */
export function warmDataCache(loaded: LoadedConfig, dataFile?: string): void {
  const cfg = loaded.config;
  if (cfg.backtest.cache === 'off') return;
  const specs = simSpecs(cfg.sim);
  openTickFeed(dataFile ?? cfg.backtest.data, new ReplayMarket(specs).units, { cache: cfg.backtest.cache }).close();
}

export function createMarket(sim: SimConfig, startMs: number): MarketSource {
  const specs = simSpecs(sim);
  // The simulator's replay file is read as it goes (no cache: a venue that lives as long as its process).
  if (sim.replayFile) return replayMarket(specs, sim.replayFile, { cache: 'off' });
  return new SyntheticMarket(specs, { seed: sim.seed, startMs, tickIntervalMs: sim.tickIntervalMs });
}
