// The venue a command talks to, as `run` would: the base URLs, or for sim.embedded a simulator started for it.
import type { LoadedConfig } from '../config/load.js';
import type { Clock } from '../util/clock.js';
import { redactUrlCredentials, type Logger } from '../util/logger.js';
import { startEmbeddedSimulator } from './kernel.js';

export interface CommandVenue {
  /** The configuration to build clients from: the base URLs and keys of the venue in use. */
  loaded: LoadedConfig;
  /** Where requests go, in a sentence. */
  where: string;
  /** Whether it is a simulator started for this command (gone when the command ends). */
  embedded: boolean;
  close(): Promise<void>;
}

/** The lines of `plan` that say which venue `run` would trade. */
export function describeVenue(loaded: LoadedConfig): string[] {
  const cfg = loaded.config;
  const ex = cfg.exchange;
  const urls = [`  spot     ${redactUrlCredentials(ex.spotBaseUrl)}`, `  futures  ${redactUrlCredentials(ex.futuresBaseUrl)}`];
  if (cfg.sim.embedded) {
    const port = cfg.sim.port === 0 ? 'any free port' : `port ${cfg.sim.port}`;
    return [
      `  venue    the embedded simulator (sim.embedded): \`run\` starts it on 127.0.0.1, ${port}, seed ${cfg.sim.seed}; exchange base URLs are not used`,
      `           \`api\` and \`record\` start one of their own on a free port (a fresh market: not the one a running daemon trades)`,
    ];
  }
  if (cfg.mode === 'dry-run') return ['  venue    market data from the venue\'s public endpoints; orders filled by a paper venue (the simulator\'s engine): none is sent', ...urls];
  if (cfg.mode === 'backtest') return ['  venue    `sextant backtest` replays backtest.data against the in-process simulator; `run` would trade the venue:', ...urls];
  return ['  venue    the exchange at the base URLs:', ...urls];
}

/**
 * Opens the venue for a command that talks to it (`api`, `record`): for sim.embedded, a simulator on a free
 * loopback port (never the configured one: a running daemon's simulator may hold it) with the demo keys unless
 * keys are set, as `run` trades it; otherwise the configured base URLs as they are.
 */
export async function openCommandVenue(loaded: LoadedConfig, logger: Logger, clock: Clock): Promise<CommandVenue> {
  const cfg = loaded.config;
  if (!cfg.sim.embedded) {
    const ex = cfg.exchange;
    const where = ex.spotBaseUrl === ex.futuresBaseUrl ? redactUrlCredentials(ex.spotBaseUrl) : `${redactUrlCredentials(ex.spotBaseUrl)} (spot), ${redactUrlCredentials(ex.futuresBaseUrl)} (futures)`;
    return { loaded, where, embedded: false, close: async () => {} };
  }
  const sim = await startEmbeddedSimulator(loaded, logger, clock, 0);
  return {
    loaded: sim.loaded,
    where: `an embedded simulator started for this command at ${sim.url} (sim.embedded in ${loaded.file}: a fresh market, not a running daemon's; the exchange base URLs are not used)`,
    embedded: true,
    close: () => sim.close(),
  };
}
