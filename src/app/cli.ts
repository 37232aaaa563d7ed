// The `sextant` command line (commander): run, plan, config check, api, and the other commands.
import cliProgress from 'cli-progress';
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, formatIssue, inFileOrder, loadConfig, type ConfigIssue, type LoadedConfig } from '../config/load.js';
import { ENDPOINTS, ENDPOINT_IDS, isEndpointId, maxWeights, type EndpointId } from '../exchange/endpoints.js';
import { ExchangeError } from '../exchange/errors.js';
import { planBucket } from '../exchange/live/rate-limiter.js';
import { parseJson, stringifyJson } from '../exchange/wire/json.js';
import type { RequestOf } from '../exchange/wire/requests.js';
import { systemClock } from '../util/clock.js';
import { createLogger, redactUrlCredentials, registerUrlCredentials, scrubSecrets, type Logger, type LogLevel } from '../util/logger.js';

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
import { RiskGate } from '../execution/risk.js';
import { describePending, unansweredOrders } from '../execution/order-tracker.js';
import type { SqliteJournal } from '../journal/sqlite-journal.js';
import { listOrders, settleOrder, SETTLE_AS, type SettleAs } from './orders-command.js';
import { DEFAULT_INSTRUMENTS } from '../exchange/sim/instruments.js';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BacktestFaultError, backtestSummary, runBacktest } from './backtest.js';
import { readSweep, runSweep } from './sweep.js';
import { startDaemon } from './daemon.js';
import { synthesize } from './synth.js';
import { importOhlcvCsv } from '../data/csv-import.js';
import { record } from '../data/recorder.js';
import { writeReplayFile } from '../data/replay-file.js';
import { MarketData } from '../data/market-data.js';
import { checkPollingPlan } from './poll-plan.js';
import { createLiveClient, createSimServer, openJournal, riskLimits } from './kernel.js';
import { checkConfig, type ConfigCheck } from './config-check.js';
import { describeVenue, openCommandVenue } from './command-venue.js';
import { fetchInstruments, knownInstruments, simulatorInstruments, type SymbolSource } from './instrument-list.js';

const DEFAULT_CONFIG = 'config/default.yaml';

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

const stdio: Io = {
  out: (s) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`),
  err: (s) => process.stderr.write(scrubSecrets(s.endsWith('\n') ? s : `${s}\n`)),
};

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function reportIssues(issues: ConfigIssue[], file: string, io: Io): void {
  for (const i of issues) io.err(formatIssue(i));
  io.err(`${issues.length} error${issues.length === 1 ? '' : 's'} in ${file}`);
}

/** Loads a config file for a command that runs no strategies: the schema and the polling plan. */
function loadOrReport(file: string, io: Io): LoadedConfig | undefined {
  try {
    const loaded = loadConfig(file);
    const ex = loaded.config.exchange;
    for (const url of [ex.spotBaseUrl, ex.futuresBaseUrl, ex.rateLimit.redis?.url]) registerUrlCredentials(url);
    const plan = checkPollingPlan(loaded);
    if (plan.length) throw new ConfigError(plan);
    return loaded;
  } catch (err) {
    if (err instanceof ConfigError) {
      reportIssues(err.issues, file, io);
      return undefined;
    }
    throw err;
  }
}

/**
 * Loads a config file and checks everything `run` would refuse (checkConfig), reporting every problem; `symbols`
 * gives the instrument list to check symbols against (by default the simulator's or the cached one).
 */
async function loadAndCheck(file: string, io: Io, symbols?: (loaded: LoadedConfig) => Promise<SymbolSource> | SymbolSource): Promise<ConfigCheck | undefined> {
  const list = symbols ?? ((l: LoadedConfig) => knownInstruments(l.config));
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig(file);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // The rest of the file is checked too: every problem at once, the schema's and the others.
    const rest = err.partial ? (await checkConfig(err.partial.loaded, { instruments: knownInstruments(err.partial.loaded.config), skipStrategies: err.partial.skipStrategies })).issues : [];
    const seen = new Set(err.issues.map(formatIssue));
    reportIssues(inFileOrder([...err.issues, ...rest.filter((i) => !seen.has(formatIssue(i)))]), file, io);
    return undefined;
  }
  const ex = loaded.config.exchange;
  for (const url of [ex.spotBaseUrl, ex.futuresBaseUrl, ex.rateLimit.redis?.url]) registerUrlCredentials(url);
  const check = await checkConfig(loaded, { instruments: await list(loaded) });
  if (check.issues.length) {
    reportIssues(check.issues, file, io);
    return undefined;
  }
  return check;
}

/** Builds the request parameters of `api` from --query pairs or a --body JSON text. */
function apiParams(id: EndpointId, query: string[], body: string | undefined): Record<string, unknown> {
  const e = ENDPOINTS[id];
  if (e.method === 'GET') {
    if (body !== undefined) throw new Error(`${id} is a GET endpoint: pass parameters with --query k=v`);
    const params: Record<string, string> = {};
    for (const kv of query) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new Error(`--query expects k=v, got ${JSON.stringify(kv)}`);
      params[kv.slice(0, eq)] = kv.slice(eq + 1);
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

async function apiCommand(idArg: string, opts: { query: string[]; body?: string; config: string; logLevel: LogLevel }, io: Io): Promise<number> {
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
  const loaded = loadOrReport(opts.config, io);
  if (!loaded) return 1;
  const logger = createLogger({ level: opts.logLevel, fd: 2, base: { app: 'sextant', cmd: 'api' } });
  // The venue `run` would trade: for sim.embedded, a simulator started for this call (said on stderr).
  const venue = await openCommandVenue(loaded, logger, systemClock);
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

async function planCommand(opts: { config: string; offline?: boolean }, io: Io): Promise<number> {
  // The venue's instrument list is read (and cached) unless --offline: symbols are checked against what `run` would see.
  const logger = createLogger({ level: 'silent' });
  const symbols = (l: LoadedConfig) => (opts.offline ? knownInstruments(l.config) : fetchInstruments(l, logger, systemClock));
  const check = await loadAndCheck(opts.config, io, symbols);
  if (!check) return 1;
  const { loaded } = check;
  const { config } = loaded;
  const ex = config.exchange;
  io.out(`sextant — ${config.mode} configuration ${loaded.file} is valid`);
  for (const line of describeVenue(loaded)) io.out(line);
  io.out(`  credentials: ${loaded.credentials ? 'set (from the environment)' : config.sim.embedded ? 'not set (the simulator\'s demo keys)' : 'not set (public endpoints only)'}`);
  for (const note of check.notes) io.out(`  ${note}`);
  io.out('');
  io.out('Endpoints (weights IP/UID):');
  for (const id of ENDPOINT_IDS) {
    const e = ENDPOINTS[id];
    io.out(`  ${id.padEnd(3)} ${e.method.padEnd(4)} ${e.path.padEnd(42)} ${String(e.weight.ip).padStart(3)}/${String(e.weight.uid).padEnd(3)} ${e.auth ? 'signed' : 'public'}`);
  }
  io.out('');
  io.out('Rate-limit plan (token buckets; worst case in any window):');
  const rl = ex.rateLimit;
  for (const s of ['spot', 'futures'] as const) {
    const mw = maxWeights(s);
    const ip = planBucket(rl[s].ip, rl.usableFraction, mw.ip, 0);
    const uid = planBucket(rl[s].uid, rl.usableFraction, mw.uid, 2 * mw.uid);
    io.out(`  ${s.padEnd(8)} IP  ${ip.worstCase}/${rl[s].ip.budget} per ${rl[s].ip.windowMs} ms (burst ${ip.burst}, +${ip.amount} every ${ip.intervalMs} ms)`);
    io.out(`  ${s.padEnd(8)} UID ${uid.worstCase}/${rl[s].uid.budget} per ${rl[s].uid.windowMs} ms (burst ${uid.burst}, +${uid.amount} every ${uid.intervalMs} ms)`);
  }
  io.out(`  order endpoints ${rl.orderRequests.budget} requests per ${rl.orderRequests.windowMs} ms; cool-off after a 429: ${rl.cooloffMs} ms${rl.redis ? `; shared through ${redactUrlCredentials(rl.redis.url)}` : ''}`);
  io.out('');
  io.out('Try: npx sextant api F2 --config FILE   (any endpoint S1–S9, F1–F9)');
  return 0;
}

/** --data, --from and --to of the backtest and sweep commands. */
function backtestRange(opts: { data?: string; from?: string; to?: string }): { dataFile?: string; fromMs?: number; toMs?: number } {
  const time = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw new Error(`--${name}: not a date: ${v}`);
    return t;
  };
  const fromMs = time(opts.from, 'from');
  const toMs = time(opts.to, 'to');
  return { ...(opts.data ? { dataFile: opts.data } : {}), ...(fromMs !== undefined ? { fromMs } : {}), ...(toMs !== undefined ? { toMs } : {}) };
}

/** A backtest trades the in-process simulator, whatever the mode: symbols are checked against its instruments. */
const backtestSymbols = (l: LoadedConfig) => simulatorInstruments(l.config);

async function backtestCommand(opts: { config: string; data?: string; from?: string; to?: string; out?: string }, io: Io): Promise<number> {
  const check = await loadAndCheck(opts.config, io, backtestSymbols);
  if (!check) return 1;
  const { loaded } = check;
  try {
    const range = backtestRange(opts);
    const logger = createLogger({ level: loaded.config.log.level, fd: 2, base: { app: 'sextant', cmd: 'backtest' } });
    // A progress bar on a terminal; nothing when the output is piped.
    const bar = process.stderr.isTTY ? new cliProgress.SingleBar({ stream: process.stderr, format: 'backtest [{bar}] {percentage}% | {value}/{total} events | eta {eta}s' }, cliProgress.Presets.shades_classic) : undefined;
    const onProgress = (done: number, total: number) => {
      if (!bar) return;
      if (done === 0) bar.start(total, 0);
      else bar.update(done);
      if (done >= total) bar.stop();
    };
    const r = await runBacktest(loaded, logger, { ...range, ...(opts.out ? { outDir: opts.out } : {}), onProgress });
    for (const line of backtestSummary(r)) io.out(line);
    return 0;
  } catch (err) {
    // A strategy fault: the run's files are written; its figures are printed before the failure.
    if (err instanceof BacktestFaultError) for (const line of backtestSummary(err.result)) io.out(line);
    io.err(`backtest failed: ${(err as Error).message}`);
    return 1;
  }
}

async function sweepCommand(opts: { config: string; sweep: string; out?: string; data?: string; from?: string; to?: string }, io: Io): Promise<number> {
  const check = await loadAndCheck(opts.config, io, backtestSymbols);
  if (!check) return 1;
  const { loaded } = check;
  try {
    const spec = readSweep(opts.sweep);
    const out = opts.out ?? join(loaded.config.backtest.out, 'sweep');
    mkdirSync(out, { recursive: true });
    const range = backtestRange(opts);
    const rows = await runSweep(opts.config, spec, out, range);
    for (const r of rows.slice(0, 10)) io.out(`${String(r.rank).padStart(3)}  ${JSON.stringify(r.params)}  strategy PnL ${r.metrics.strategyPnl}  dd ${r.metrics.maxDrawdownPct} %  fills ${r.metrics.fills}`);
    io.out(`${rows.length} runs ranked in ${join(out, 'sweep.csv')}`);
    return 0;
  } catch (err) {
    io.err(`sweep failed: ${(err as Error).message}`);
    return 1;
  }
}

async function simCommand(opts: { config: string; port?: string; host?: string; seed?: string }, io: Io): Promise<number> {
  const loaded = loadOrReport(opts.config, io);
  if (!loaded) return 1;
  const sim = loaded.config.sim;
  const int = (v: string | undefined, name: string, fallback: number): number => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v)) throw new Error(`--${name} expects a whole number, got ${JSON.stringify(v)}`);
    return Number(v);
  };
  let port: number;
  try {
    port = int(opts.port, 'port', sim.port);
    sim.seed = int(opts.seed, 'seed', sim.seed);
  } catch (err) {
    io.err((err as Error).message);
    return 1;
  }
  const host = opts.host ?? sim.host;
  const logger = createLogger({ level: loaded.config.log.level, base: { app: 'sextant', cmd: 'sim' } }).child({ component: 'sim' });
  const server = createSimServer(loaded, logger, systemClock);
  let url: string;
  try {
    url = await server.listen(port, host);
  } catch (err) {
    io.err(`cannot listen on ${host}:${port}: ${(err as Error).message}`);
    return 1;
  }
  logger.info({ url, seed: sim.seed, credentials: loaded.credentials ? 'from the environment' : 'demo' }, 'simulated exchange listening');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'simulated exchange stopping');
      void server.close().then(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}

async function daemonCommand(opts: { config: string }, io: Io): Promise<number> {
  // Everything the start would refuse, reported before anything starts; symbols against the venue's list read now
  // (the logger is made once the config has loaded: it logs at the configured level).
  let made: Logger | undefined;
  const check = await loadAndCheck(opts.config, io, (l) => fetchInstruments(l, (made = createLogger({ level: l.config.log.level })).child({ component: 'config' }), systemClock));
  if (!check || !made) return 1;
  const logger = made;
  for (const note of check.notes) logger.child({ component: 'config' }).info(note);
  let daemon;
  try {
    daemon = await startDaemon(check.loaded, logger, systemClock);
  } catch (err) {
    io.err(`cannot start: ${(err as Error).message}`);
    return 1;
  }
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      void daemon.stop(signal).then(resolve, (err: unknown) => {
        io.err(`stop failed: ${(err as Error).message}`);
        resolve(1);
      });
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    // SIGHUP: re-read the config; apply strategy params when everything validates, keep the old ones otherwise.
    process.on('SIGHUP', () => {
      void (async () => {
        let next: ConfigCheck;
        try {
          const loaded = loadConfig(opts.config);
          // Symbols cannot change without a restart: the list known offline is enough.
          next = await checkConfig(loaded, { instruments: knownInstruments(loaded.config) });
          if (next.issues.length) throw new ConfigError(next.issues);
        } catch (err) {
          const lines = err instanceof ConfigError ? err.issues.map(formatIssue) : [(err as Error).message];
          logger.warn({ problems: lines }, 'config reload refused: the running config stays');
          return;
        }
        const problems = daemon.reload(next.loaded);
        if (problems.length) logger.warn({ problems }, 'config reload refused: the running config stays');
      })();
    });
  });
}

export function buildProgram(io: Io, setCode: (n: number) => void): Command {
  const program = new Command();
  program
    .name('sextant')
    .description('Trading daemon for the spot (/api/v2) and futures (/capi/v2) REST interface')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });

  program
    .command('run')
    .description('run the daemon: market data, strategies, risk gate, executor (SIGTERM stops it cleanly)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string }) => setCode(await daemonCommand(opts, io)));

  program
    .command('plan')
    .description('check the configuration as `config check` does and show what the daemon will use: the venue, endpoints, weights, rate-limit plan (reads and caches the venue\'s instrument list)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .option('--offline', 'do not read the venue\'s instrument list: check symbols against the cached one')
    .action(async (opts: { config: string; offline?: boolean }) => setCode(await planCommand(opts, io)));

  const config = program.command('config').description('configuration tools');
  config
    .command('check')
    .description('check a config file for everything `run` would refuse (schema, strategies and their params, schedules, cron, symbols, polling plan); exits 0, or 1 listing every error as file:line:col: path: message')
    .argument('<file>', 'YAML config file')
    .action(async (file: string) => {
      const check = await loadAndCheck(file, io);
      if (check) {
        io.out(`${file}: ok`);
        for (const note of check.notes) io.out(`  ${note}`);
      }
      setCode(check ? 0 : 1);
    });

  program
    .command('api')
    .description('call one endpoint (S1–S9, F1–F9; S0/F0 server time) and print the validated payload as JSON')
    .argument('<id>', 'endpoint id')
    .option('-q, --query <k=v>', 'query parameter (GET), repeatable', collect, [])
    .option('-b, --body <json>', 'JSON body (POST)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .addOption(new Option('--log-level <level>', 'log lines on stderr (retries, warnings)').choices(LOG_LEVELS).default('silent'))
    .action(async (id: string, opts: { query: string[]; body?: string; config: string; logLevel: LogLevel }) => setCode(await apiCommand(id, opts, io)));

  /** Opens the configured journal for a command: one that does not exist is said so, and nothing is created. */
  const withJournal = (file: string, act: (journal: SqliteJournal, loaded: LoadedConfig) => string): void => {
    const loaded = loadOrReport(file, io);
    if (!loaded) return setCode(1);
    const path = loaded.config.journal.path;
    if (path !== ':memory:' && !existsSync(path)) {
      io.err(`no journal at ${path} (journal.path in ${file}): nothing has traded with this configuration yet`);
      return setCode(1);
    }
    const journal = openJournal(loaded);
    try {
      io.out(act(journal, loaded));
      setCode(0);
    } catch (err) {
      io.err((err as Error).message);
      setCode(1);
    } finally {
      journal.close();
    }
  };
  const risk = program.command('risk').description('the kill switch, trading state and fence kept in the journal');
  const withGate = (file: string, act: (gate: RiskGate, journal: SqliteJournal) => string): void =>
    withJournal(file, (journal, loaded) => act(new RiskGate(riskLimits(loaded), journal), journal));
  risk
    .command('status')
    .description('show whether a kill switch is latched, and which orders hold new ones back')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action((opts: { config: string }) =>
      withGate(opts.config, (g, journal) => {
        const state = g.state() === 'halted' ? `halted: ${g.latchReason() ?? ''}` : 'active: no kill switch latched';
        const pending = unansweredOrders(journal, systemClock.now());
        const fence = pending.length
          ? `fence: ${describePending(pending)}; they are looked up at every reconciliation, or settle one with \`sextant orders resolve\``
          : 'fence: no order with an unknown outcome (a starting daemon also waits for its first reconciliation and, live, a signed request)';
        return `${state}\n${fence}`;
      }),
    );
  risk
    .command('reset')
    .description('operator action: clear a latched kill switch (drawdown, order rate); a running daemon takes it in')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action((opts: { config: string }) =>
      withGate(opts.config, (g) => {
        const was = g.latchReason();
        g.reset();
        return was ? `cleared: ${was}` : 'nothing was latched';
      }),
    );

  const orders = program.command('orders').description('the orders in the journal, and settling one the venue cannot answer for');
  orders
    .command('list')
    .description('the orders not final (in flight, resting, unanswered), or every order with --all')
    .option('--all', 'every order the journal holds')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action((opts: { config: string; all?: boolean }) => withJournal(opts.config, (journal) => listOrders(journal, systemClock.now(), !!opts.all).join('\n')));
  orders
    .command('resolve')
    .description('operator action: settle an order that is not final, journaled with the reason (a running daemon takes it in at its next reconciliation)')
    .argument('<id>', 'client id or venue order id')
    .addOption(new Option('--as <state>', 'what became of it').choices([...SETTLE_AS]).makeOptionMandatory())
    .requiredOption('--reason <text>', 'why: kept in the order\'s history')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action((id: string, opts: { as: SettleAs; reason: string; config: string }) =>
      withJournal(opts.config, (journal) => {
        const row = settleOrder(journal, id, opts.as, opts.reason, systemClock.now());
        return `${row.clientOid}${row.orderId ? ` (order ${row.orderId})` : ''}: ${row.state}`;
      }),
    );

  program
    .command('backtest')
    .description('replay market data through the strategies, risk gate, executor and journal in virtual time; writes report.json, trades.csv, equity.csv')
    .option('-c, --config <file>', 'config file', 'config/backtest.yaml')
    .option('--data <file>', 'market data (JSON lines); default: backtest.data')
    .option('--from <iso>', 'first timestamp to replay')
    .option('--to <iso>', 'last timestamp to replay')
    .option('--out <dir>', 'output folder; default: backtest.out')
    .option('--sweep <file>', 'YAML {strategy: <id>, params: {<name>: [values...]}}: every combination, in worker threads, ranked')
    .action(async (opts: { config: string; data?: string; from?: string; to?: string; out?: string; sweep?: string }) =>
      setCode(opts.sweep ? await sweepCommand({ ...opts, sweep: opts.sweep }, io) : await backtestCommand(opts, io)),
    );

  const data = program.command('data').description('market data files');
  data
    .command('synth')
    .description('write synthetic market data (the seeded synthetic market) for backtests')
    .requiredOption('--symbol <sym>', 'instrument, e.g. BTCUSDT_SPBL or cmt_btcusdt (repeat with commas)')
    .requiredOption('--from <iso>', 'start time')
    .requiredOption('--to <iso>', 'end time')
    .option('--interval <dur>', 'tick interval: 250ms, 1s, 1m', '1s')
    .option('--seed <n>', 'seed', '42')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: { symbol: string; from: string; to: string; interval: string; seed: string; out: string }) => {
      const symbols = opts.symbol.split(',');
      const specs = DEFAULT_INSTRUMENTS.filter((s) => symbols.includes(s.symbol));
      const unknown = symbols.filter((s) => !specs.some((x) => x.symbol === s));
      const fromMs = Date.parse(opts.from);
      const toMs = Date.parse(opts.to);
      const m = /^(\d+)(ms|s|m)$/.exec(opts.interval);
      const problems = [
        ...unknown.map((s) => `--symbol: unknown instrument ${s} (known: ${DEFAULT_INSTRUMENTS.map((x) => x.symbol).join(', ')})`),
        ...(Number.isNaN(fromMs) ? [`--from: not a date: ${opts.from}`] : []),
        ...(Number.isNaN(toMs) || toMs <= fromMs ? [`--to: must be a date after --from: ${opts.to}`] : []),
        ...(!m ? [`--interval: expected e.g. 250ms, 1s, 1m; got ${opts.interval}`] : []),
        ...(!/^\d+$/.test(opts.seed) ? [`--seed: expected a whole number, got ${opts.seed}`] : []),
      ];
      if (problems.length) {
        problems.forEach((p) => io.err(p));
        return setCode(1);
      }
      const intervalMs = Number(m![1]) * (m![2] === 'ms' ? 1 : m![2] === 's' ? 1000 : 60_000);
      const n = synthesize(specs, { fromMs, toMs, intervalMs, seed: Number(opts.seed), out: opts.out });
      io.out(`${opts.out}: ${n} ticks`);
      setCode(0);
    });

  data
    .command('import')
    .description('import OHLCV CSV (timestamp,open,high,low,close,volume) into the replay format')
    .requiredOption('--csv <file>', 'CSV file')
    .requiredOption('--symbol <sym>', 'instrument the bars belong to')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action((opts: { csv: string; symbol: string; out: string }) => {
      try {
        const records = importOhlcvCsv(opts.csv, opts.symbol);
        writeReplayFile(opts.out, records);
        io.out(`${opts.out}: ${records.length} ticks from ${records.length / 4} bars`);
        setCode(0);
      } catch (err) {
        io.err((err as Error).message);
        setCode(1);
      }
    });

  program
    .command('record')
    .description('record polled market data (tickers, last trades) for backtests; stops on SIGINT/SIGTERM or after --seconds')
    .option('-c, --config <file>', 'config file (base URLs, polls, strategies\' symbols)', DEFAULT_CONFIG)
    .option('--symbols <list>', 'comma-separated symbols (default: the strategies\' symbols)')
    .option('--seconds <n>', 'stop after this many seconds')
    .requiredOption('--out <file>', 'output file (JSON lines)')
    .action(async (opts: { config: string; symbols?: string; seconds?: string; out: string }) => {
      const loaded = loadOrReport(opts.config, io);
      if (!loaded) return setCode(1);
      const symbols = opts.symbols ? opts.symbols.split(',') : [...new Set(loaded.config.strategies.flatMap((s) => s.symbols))];
      const logger = createLogger({ level: 'warn', fd: 2 });
      // The venue `run` would trade: for sim.embedded, a simulator started for the recording.
      const venue = await openCommandVenue(loaded, logger, systemClock);
      io.err(`sextant record: recording ${symbols.join(', ')} from ${venue.where}`);
      const client = createLiveClient({ ...venue.loaded, credentials: undefined }, logger, systemClock);
      const data = new MarketData(client, {
        spotSymbols: symbols.filter((s) => !s.startsWith('cmt_')), futuresSymbols: symbols.filter((s) => s.startsWith('cmt_')),
        polls: loaded.config.daemon.polls, clock: systemClock, logger,
      });
      const stop = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
        if (opts.seconds) setTimeout(resolve, Number(opts.seconds) * 1000).unref();
      });
      const n = await record(data, opts.out, stop);
      await client.close();
      await venue.close();
      io.out(`${opts.out}: ${n} records`);
      setCode(0);
    });

  program
    .command('sim')
    .description('run the simulated exchange: the venue wire protocol on one port (spot and futures)')
    .option('-p, --port <n>', 'port (config sim.port, default 8787; 0 picks a free one)')
    .option('--host <host>', 'address to bind (config sim.host, default 127.0.0.1)')
    .option('--seed <n>', 'market seed (config sim.seed)')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG)
    .action(async (opts: { config: string; port?: string; host?: string; seed?: string }) => setCode(await simCommand(opts, io)));

  return program;
}

/** Runs the CLI; resolves to the exit code (an unexpected error is reported on stderr, secrets scrubbed: exit 1). */
export async function main(argv: string[], io: Io = stdio): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (n) => {
    code = n;
  });
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.err(`sextant: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  return code;
}
