// Everything `sextant run` would refuse in a configuration, each as file:line:col: path: message, and the one
// way commands, sweep workers and reloads load a config file.
import { existsSync } from 'node:fs';
import { ConfigError, formatIssue, inFileOrder, loadConfig, locatedIssues, type ConfigIssue, type LoadedConfig } from '../config/load.js';
import { safeParseNumbersAsWritten } from '../config/number-text.js';
import type { StrategyDefinition } from '../strategy/api.js';
import { loadStrategy } from '../strategy/loader.js';
import { registerUrlCredentials } from '../util/logger.js';
import { cronProblem } from './cron.js';
import { knownInstruments, type SymbolSource } from './instrument-list.js';
import { missingCredentials, tradesSimulator } from './kernel.js';
import { checkPollingPlan } from './poll-plan.js';

export interface ConfigCheck {
  /** Every problem found, in file order; none: `run` may start. */
  issues: ConfigIssue[];
  /** What was checked against what, and what could not be checked, said plainly. */
  notes: string[];
  /** The configuration as it runs: strategy params with numbers read as written where the strategy expects text. */
  loaded: LoadedConfig;
}

export interface ConfigCheckOptions {
  /** The list symbols are checked against; by default the simulator's when the config trades it, else the cached one. */
  instruments?: SymbolSource;
  /** Strategies not to check (they failed the schema: ConfigError.partial). */
  skipStrategies?: ReadonlySet<number>;
}

/**
 * The name of `names` one typo away from `name` (case ignored; one character added, dropped or changed), for "did
 * you mean". One only: two would offer ETHUSDT_SPBL for BTCUSDT_SPBL.
 */
function closest(name: string, names: Iterable<string>): string | undefined {
  const a = name.toLowerCase();
  let best: string | undefined;
  let bestCost = 2;
  for (const candidate of names) {
    const b = candidate.toLowerCase();
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const up = row[j]!;
        row[j] = Math.min(up + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
        diagonal = up;
      }
    }
    if (row[b.length]! < bestCost) {
      bestCost = row[b.length]!;
      best = candidate;
    }
  }
  return best;
}

const didYouMean = (name: string, names: Iterable<string>): string => {
  const near = closest(name, names);
  return near && near !== name ? `; did you mean ${JSON.stringify(near)}?` : '';
};

/** What makes the account lease unusable: a venue that lives only as long as the process, or a store it cannot use. */
function leaseProblem(cfg: LoadedConfig['config']): { key?: string; message: string } | undefined {
  const lease = cfg.daemon.lease;
  if (!lease) return undefined;
  if (cfg.mode !== 'live' || cfg.sim.embedded) {
    return {
      message:
        'an account lease needs a venue that outlives the daemon (mode live, sim.embedded false): the embedded simulator and the paper venue are new at every start',
    };
  }
  if (lease.store === 'journal') {
    return cfg.journal.url === undefined
      ? { key: 'store', message: '"journal" keeps the lease in the PostgreSQL journal\'s database: set journal.url, or give a Redis URL' }
      : undefined;
  }
  if (!/^rediss?:\/\/[^\s]+$/.test(lease.store)) return { key: 'store', message: 'a Redis URL (redis://host:6379) or "journal"' };
  return undefined;
}

/**
 * Checks a loaded configuration the way `run` would use it: strategies found in strategyDirs and loadable, their
 * params valid by their own schema, their schedule names hooks they define, every cron expression valid, every
 * symbol known (see ConfigCheckOptions), a replay file present, the polling plan within its share of the budget.
 */
export async function checkConfig(loaded: LoadedConfig, opts: ConfigCheckOptions = {}): Promise<ConfigCheck> {
  const { config: cfg, file, source } = loaded;
  const issues: ConfigIssue[] = [];
  const notes: string[] = [];
  const at = (path: ReadonlyArray<PropertyKey>, key?: string) => ({ file, ...source?.locate(path, key) });

  issues.push(...checkPollingPlan(loaded));

  const reconcile = cronProblem(cfg.daemon.reconcileCron);
  if (reconcile) issues.push({ ...at(['daemon', 'reconcileCron']), path: 'daemon.reconcileCron', message: reconcile });

  if (tradesSimulator(cfg) && cfg.sim.replayFile && !existsSync(cfg.sim.replayFile)) {
    issues.push({ ...at(['sim', 'replayFile']), path: 'sim.replayFile', message: `no such file: ${cfg.sim.replayFile}` });
  }

  const lease = leaseProblem(cfg);
  if (lease)
    issues.push({
      ...at(['daemon', 'lease', ...(lease.key ? [lease.key] : [])]),
      path: `daemon.lease${lease.key ? `.${lease.key}` : ''}`,
      message: lease.message,
    });

  const list = opts.instruments ?? knownInstruments(cfg);
  if (cfg.strategies.some((s, i) => s.symbols.length > 0 && !opts.skipStrategies?.has(i))) {
    notes.push(list.symbols ? `symbols: checked against ${list.from}${list.note ? ` (${list.note})` : ''}` : `symbols: ${list.why}`);
  }

  const strategies = [...cfg.strategies];
  for (const [i, s] of cfg.strategies.entries()) {
    if (opts.skipStrategies?.has(i)) continue;
    const base = ['strategies', i] as const;
    if (list.symbols) {
      s.symbols.forEach((symbol, j) => {
        if (!list.symbols.has(symbol)) {
          issues.push({
            ...at([...base, 'symbols', j]),
            path: `strategies[${i}].symbols[${j}]`,
            message: `unknown symbol ${JSON.stringify(symbol)}: not among ${list.from}${didYouMean(symbol, list.symbols)}`,
          });
        }
      });
    }
    for (const [hook, expression] of Object.entries(s.schedule)) {
      const problem = cronProblem(expression);
      if (problem) issues.push({ ...at([...base, 'schedule', hook]), path: `strategies[${i}].schedule.${hook}`, message: problem });
    }

    let def: StrategyDefinition<unknown>;
    try {
      def = await loadStrategy(s.name, cfg.strategyDirs);
    } catch (err) {
      issues.push({ ...at([...base, 'name']), path: `strategies[${i}].name`, message: (err as Error).message });
      continue;
    }

    const hooks = Object.keys(def.onSchedule ?? {});
    for (const hook of Object.keys(s.schedule)) {
      if (hooks.includes(hook)) continue;
      const has = hooks.length ? `its hooks: ${hooks.join(', ')}${didYouMean(hook, hooks)}` : 'it has none';
      issues.push({
        ...at([...base, 'schedule'], hook),
        path: `strategies[${i}].schedule.${hook}`,
        message: `${s.name} has no onSchedule hook ${JSON.stringify(hook)} (${has})`,
      });
    }

    // Bars: a strategy with an onBar hook needs timeframes, its own or the instance's.
    if (def.onBar && !s.timeframes?.length && !def.timeframes?.length) {
      issues.push({
        ...at(base),
        path: `strategies[${i}].timeframes`,
        message: `${s.name} has an onBar hook but no timeframes: name them, e.g. timeframes: [1m]`,
      });
    }

    const params = safeParseNumbersAsWritten(def.params, s.params, (p) => source?.numberText([...base, 'params', ...p]));
    if (params.success) strategies[i] = { ...s, params: params.input as Record<string, unknown> };
    else issues.push(...locatedIssues(params.issues, { file, ...(source ? { source } : {}), base: [...base, 'params'] }));
  }

  if (missingCredentials(loaded)) {
    notes.push('credentials: not set here; `run` in live mode needs SEXTANT_API_KEY, SEXTANT_API_SECRET and SEXTANT_API_PASSPHRASE (or their _FILE variants)');
  }

  return { issues: inFileOrder(issues), notes, loaded: { ...loaded, config: { ...cfg, strategies } } };
}

export interface LoadCheckedOptions {
  /** The list symbols are checked against, chosen once the file has loaded; by default knownInstruments. */
  instrumentsFor?: (loaded: LoadedConfig) => SymbolSource | Promise<SymbolSource>;
  /** false for a command that runs no strategies: only the schema and the polling plan are checked. */
  strategies?: boolean;
  /** The environment read for base-URL overrides and secrets (default: the process's). */
  env?: Record<string, string | undefined>;
}

export type LoadChecked = { ok: true; check: ConfigCheck } | { ok: false; issues: ConfigIssue[] };

/**
 * Loads a config file and checks everything `run` would refuse (checkConfig), or with `strategies: false` the
 * schema and the polling plan only: the one way every command, a sweep worker and a reload read a config.
 */
export async function loadCheckedConfig(file: string, opts: LoadCheckedOptions = {}): Promise<LoadChecked> {
  const withStrategies = opts.strategies !== false;
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(file, opts.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    if (!withStrategies) return { ok: false, issues: err.issues };
    // The rest of the file is checked too: every problem at once, the schema's and the others.
    const partial = err.partial;
    const rest = partial
      ? (await checkConfig(partial.loaded, { instruments: knownInstruments(partial.loaded.config), skipStrategies: partial.skipStrategies })).issues
      : [];
    const seen = new Set(err.issues.map(formatIssue));
    return { ok: false, issues: inFileOrder([...err.issues, ...rest.filter((issue) => !seen.has(formatIssue(issue)))]) };
  }
  const ex = loaded.config.exchange;
  for (const url of [ex.spotBaseUrl, ex.futuresBaseUrl, ex.rateLimit.redis?.url, loaded.config.daemon.lease?.store]) registerUrlCredentials(url);
  if (!withStrategies) {
    const plan = checkPollingPlan(loaded);
    return plan.length ? { ok: false, issues: plan } : { ok: true, check: { issues: [], notes: [], loaded } };
  }
  const instruments = opts.instrumentsFor ? await opts.instrumentsFor(loaded) : knownInstruments(loaded.config);
  const check = await checkConfig(loaded, { instruments });
  return check.issues.length ? { ok: false, issues: check.issues } : { ok: true, check };
}
