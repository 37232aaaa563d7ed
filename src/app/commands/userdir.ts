// The trader's own folder, apart from the product: `sextant init` writes one that works as written (configs, an
// example strategy and its test, sample data, .gitignore, package.json, tsconfig.json, a README of the next
// commands), and `sextant new-strategy` adds a strategy from a template (its test and a backtest config with it).
// Both copy from the package's own files: templates/userdir/, the shipped examples, data/sample/.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { SHIPPED_STRATEGIES } from '../../strategy/loader.js';
import { esmResolve } from '../../strategy/resolve.js';
import { PACKAGE, PACKAGE_ROOT } from '../../util/package.js';
import type { Io, SetCode } from './io.js';

const TEMPLATE_DIR = join(PACKAGE_ROOT, 'templates', 'userdir');
const SAMPLE_DIR = join(PACKAGE_ROOT, 'data', 'sample');

/** The sample data a user folder gets: its name there, and the shipped file it is. */
const SAMPLE_DATA = {
  ticks: { file: 'ticks.jsonl', from: 'ticks.jsonl', about: '30 minutes of BTC spot and ETH futures ticks at 1 s' },
  btc5s: { file: 'btc-5s.jsonl', from: 'rsi-reversion-btc-5s.jsonl', about: '12 hours of BTC spot ticks at 5 s' },
} as const;

/** What an editor type-checks strategies with (the user folder's devDependencies): the versions this package is built with. */
const TOOL_VERSIONS = { __TYPES_NODE__: PACKAGE.devDependencies?.['@types/node'] ?? '^20', __TYPESCRIPT__: PACKAGE.devDependencies?.typescript ?? '^5' };

/** The example `init` copies into strategies/ (with its test): the one config/backtest.yaml and dry-run.yaml run. */
const INIT_EXAMPLE = 'spot-market-maker';

/** What a template of `new-strategy` is: a shipped example (and its test) and how its backtest config is written. */
interface Template {
  example: string;
  about: string;
  symbol: string;
  data: keyof typeof SAMPLE_DATA;
  timeframes?: string[];
  params: string;
  accounts: string;
}

const SPOT_ACCOUNTS = 'spot: { USDT: "100000", BTC: "1" }\n    futuresCollateral: "0"';
const FUTURES_ACCOUNTS = 'spot: { USDT: "0" }\n    futuresCollateral: "100000"\n    leverage: 20';

export const TEMPLATES: Readonly<Record<string, Template>> = {
  bars: {
    example: 'rsi-reversion',
    about: 'on closed bars (onBar): RSI mean reversion on spot 1-minute bars',
    symbol: 'BTCUSDT_SPBL',
    data: 'btc5s',
    timeframes: ['1m'],
    params: '{ timeframe: 1m, period: 14, buyBelow: 30, sellAbove: 50, quoteAmount: "1000" }',
    accounts: SPOT_ACCOUNTS,
  },
  ticks: {
    example: 'trend-follower',
    about: 'on every tickers poll (onMarket): a moving-average cross on futures, with stop-loss and take-profit triggers',
    symbol: 'cmt_ethusdt',
    data: 'ticks',
    params: '{ fast: 10, slow: 30, size: "0.1", stopLossBps: 50, takeProfitBps: 100 }',
    accounts: FUTURES_ACCOUNTS,
  },
  'market-maker': {
    example: 'spot-market-maker',
    about: 'post-only quotes on both sides of a spot pair, skewed against inventory',
    symbol: 'BTCUSDT_SPBL',
    data: 'ticks',
    params: '{ halfSpreadBps: 25, size: "0.002", maxInventory: "0.02", skewBps: 10, toleranceBps: 40 }',
    accounts: SPOT_ACCOUNTS,
  },
  'futures-grid': {
    example: 'futures-grid',
    about: 'a long grid on futures: bids under a centre, take-profits above the entry, a managed stop-loss',
    symbol: 'cmt_ethusdt',
    data: 'ticks',
    params: '{ levels: 4, stepBps: 5, size: "0.05", stopLossSteps: 2 }',
    accounts: FUTURES_ACCOUNTS,
  },
};

class UserdirError extends Error {}

/** The files of a folder, recursively, as paths relative to it. */
function filesOf(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOf(dir, join(under, e.name)) : e.isFile() ? [join(under, e.name)] : [],
  );
}

/** Writes `text` to `file` (its folder made), never over an existing file. */
function writeNew(file: string, text: string, written: string[]): void {
  if (existsSync(file)) throw new UserdirError(`${file} exists already: nothing was overwritten`);
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeFileSync(file, text);
  written.push(file);
}

/** Copies a shipped sample data file into the folder's data/ unless it is there. */
function copySample(dir: string, which: keyof typeof SAMPLE_DATA, written: string[]): string {
  const { file, from } = SAMPLE_DATA[which];
  const to = join(dir, 'data', file);
  if (!existsSync(to)) {
    mkdirSync(join(dir, 'data'), { recursive: true });
    copyFileSync(join(SAMPLE_DIR, from), to);
    written.push(to);
  }
  return to;
}

/**
 * A shipped example's strategy file and its test, renamed: `name: '<example>'` and the test's mentions of the
 * name become `name`. (Its README speaks of the repository's files: it stays with the package.)
 */
function exampleFiles(example: string, name: string): Array<[file: string, text: string]> {
  const from = join(SHIPPED_STRATEGIES, example);
  const quoted = (s: string) => `'${s}'`;
  const out: Array<[string, string]> = [];
  for (const f of readdirSync(from)) {
    const text = readFileSync(join(from, f), 'utf8');
    if (f === 'index.ts') {
      if (text.split(`name: ${quoted(example)}`).length !== 2) throw new UserdirError(`${join(from, f)}: its name is not written once as name: '${example}'`);
      out.push(['index.ts', text.replace(`name: ${quoted(example)}`, `name: ${quoted(name)}`)]);
    } else if (f === `${example}.test.ts`) out.push([`${name}.test.ts`, text.split(quoted(example)).join(quoted(name))]);
  }
  return out;
}

/** Whether `sextant/strategy` resolves from `dir` the way an editor will look for it (node_modules up the tree). */
function packageVisibleFrom(dir: string): boolean {
  try {
    esmResolve('sextant/package.json', pathToFileURL(join(dir, 'package.json')));
    return true;
  } catch {
    return false;
  }
}

/** `sextant init [dir]`: the files written, in order. */
export function initUserdir(dir: string, opts: { force?: boolean } = {}): string[] {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UserdirError(`${dir} is a file`);
  const present = existsSync(dir) ? readdirSync(dir).filter((f) => f !== '.git') : [];
  if (present.length && !opts.force)
    throw new UserdirError(
      `${dir} is not empty (${present.slice(0, 5).join(', ')}${present.length > 5 ? ', …' : ''}): name a new folder, or --force to add only what is missing`,
    );
  const written: string[] = [];
  const name =
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-') || 'sextant-bot';
  const add = (file: string, text: string) => {
    if (opts.force && existsSync(file)) return;
    writeNew(file, text, written);
  };
  for (const f of filesOf(TEMPLATE_DIR)) {
    let text = readFileSync(join(TEMPLATE_DIR, f), 'utf8');
    for (const [key, value] of Object.entries({ __NAME__: name, ...TOOL_VERSIONS })) text = text.split(key).join(value);
    // npm leaves a package's .gitignore out: the template keeps it as `gitignore`.
    const to = f === 'gitignore' ? '.gitignore' : f;
    if (to === 'tsconfig.json' && !packageVisibleFrom(dir)) {
      // No node_modules up the tree holds this package (a global install): the editor is told where it is.
      const tsconfig = JSON.parse(text) as { compilerOptions: Record<string, unknown> };
      tsconfig.compilerOptions.paths = {
        'sextant/strategy': [join(PACKAGE_ROOT, 'dist', 'strategy', 'api.d.ts')],
        'sextant/testing': [join(PACKAGE_ROOT, 'dist', 'strategy', 'testing.d.ts')],
      };
      text = `${JSON.stringify(tsconfig, null, 2)}\n`;
    }
    add(join(dir, to), text);
  }
  for (const [f, text] of exampleFiles(INIT_EXAMPLE, INIT_EXAMPLE)) add(join(dir, 'strategies', INIT_EXAMPLE, f), text);
  copySample(dir, 'ticks', written);
  copySample(dir, 'btc5s', written);
  mkdirSync(join(dir, 'reports'), { recursive: true });
  return written;
}

/** The backtest config `new-strategy` writes beside the strategy: it runs as written from the user folder. */
function backtestConfig(name: string, template: string, t: Template): string {
  const sample = SAMPLE_DATA[t.data];
  return [
    `# A backtest of strategies/${name} (from the ${template} template: ${t.about}), over ${sample.about}, in`,
    `# virtual time. Paths are relative to this file's folder.`,
    `#   npx sextant backtest --config config/${name}.backtest.yaml`,
    'mode: backtest',
    '',
    'backtest:',
    `  data: ../data/${sample.file}`,
    `  out: ../reports/${name}`,
    '  latencyMs: 50',
    '',
    'strategyDirs: [../strategies]',
    '',
    'sim:',
    '  accounts:',
    `    ${t.accounts}`,
    '',
    'risk:',
    '  maxNotionalPerOrder: "5000"',
    '  maxNotionalPerSymbol: "20000"',
    '  priceBandPct: "2"',
    '  staleAfterMs: 10000',
    '  maxDrawdownPct: "10"',
    '',
    'strategies:',
    `  - id: ${name}`,
    `    name: ${name}`,
    `    symbols: [${t.symbol}]`,
    ...(t.timeframes ? [`    timeframes: [${t.timeframes.join(', ')}]`] : []),
    `    params: ${t.params}`,
    '',
    'log:',
    '  level: warn',
    '',
  ].join('\n');
}

/** `sextant new-strategy NAME --template T`: the files written. */
export function newStrategy(dir: string, name: string, template: string): string[] {
  // The name is also the instance id of its backtest config (strategies[].id: 1–24 of [A-Za-z0-9_-]).
  if (!/^[a-z0-9][a-z0-9_-]{0,23}$/.test(name))
    throw new UserdirError(
      `strategy name ${JSON.stringify(name)}: 1 to 24 lower-case letters, digits, dashes and underscores, starting with a letter or digit`,
    );
  const t = TEMPLATES[template];
  if (!t) throw new UserdirError(`unknown template ${JSON.stringify(template)} (one of ${Object.keys(TEMPLATES).join(', ')})`);
  const folder = join(dir, 'strategies', name);
  const files: Array<[string, string]> = [
    ...exampleFiles(t.example, name).map(([f, text]): [string, string] => [join(folder, f), text]),
    [join(dir, 'config', `${name}.backtest.yaml`), backtestConfig(name, template, t)],
  ];
  // Nothing is written unless all of it can be.
  const taken = [folder, `${folder}.ts`, ...files.map(([f]) => f)].find((f) => existsSync(f));
  if (taken) throw new UserdirError(`${relative(dir, taken) || taken} exists already: choose another name`);
  const written: string[] = [];
  for (const [f, text] of files) writeNew(f, text, written);
  copySample(dir, t.data, written);
  return written;
}

const shown = (files: string[]) => files.map((f) => `  ${relative(process.cwd(), f) || f}`);

export function registerUserdir(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('init')
    .description(
      'write a user folder that works as written: config/ (dry-run.yaml, backtest.yaml), strategies/ with an example and its test, data/ with sample data, .gitignore, package.json, tsconfig.json, README.md',
    )
    .argument('[dir]', 'the folder (made when missing; default: the current one)', '.')
    .option('--force', 'write into a folder that is not empty: only the files that are missing')
    .action((dir: string, opts: { force?: boolean }) => {
      const at = resolve(dir);
      try {
        const written = initUserdir(at, opts);
        io.out([`wrote ${written.length} files in ${at}:`, ...shown(written)].join('\n'));
        const cd = relative(process.cwd(), at);
        io.out(`next: ${cd ? `cd ${cd} && ` : ''}npx sextant backtest --config config/backtest.yaml (README.md lists the commands after it)`);
        setCode(0);
      } catch (err) {
        if (!(err instanceof UserdirError)) throw err;
        io.err(`init: ${err.message}`);
        setCode(1);
      }
    });
  program
    .command('new-strategy')
    .description(
      `write strategies/NAME/ (index.ts and NAME.test.ts) from a template, and config/NAME.backtest.yaml that backtests it as written; templates: ${Object.entries(
        TEMPLATES,
      )
        .map(([k, t]) => `${k} (${t.about})`)
        .join('; ')}`,
    )
    .argument('<name>', 'the strategy name (its folder, and `name:` in configs)')
    .option('-t, --template <template>', `one of ${Object.keys(TEMPLATES).join(', ')}`, 'bars')
    .action((name: string, opts: { template: string }) => {
      try {
        const written = newStrategy(process.cwd(), name, opts.template);
        io.out([`wrote ${written.length} files:`, ...shown(written)].join('\n'));
        io.out(`next: npx sextant test-strategy ${name} && npx sextant backtest --config config/${name}.backtest.yaml`);
        setCode(0);
      } catch (err) {
        if (!(err instanceof UserdirError)) throw err;
        io.err(`new-strategy: ${err.message}`);
        setCode(1);
      }
    });
}
