// A strategy's code that throws while it runs (a hook, its lookback, its params schema) is reported at the line and
// column of its own file where it threw: in the log and in the instance's fault, whether its compiled module was
// imported from the compile cache or, with no cache folder that can be written, from a data: URL; and for a
// JavaScript strategy, in its file or a file of its folder. Loaded and run by the built loader and runner (dist/)
// in child processes, as in the daemon.
import { mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { dist, files, inChild, strategyPackage } from './loader-child.js';

const tmp = () => realpathSync(mkdtempSync(join(tmpdir(), 'sextant-throw-site-')));

/**
 * A TypeScript folder strategy that throws where its `where` param says: in onMarket itself, in a function of a
 * file it imports, in the runner's `bars()` it calls wrongly, in onStart, in its lookback function, in its params
 * schema. Line and column of each throw are in the comments of the test below.
 */
const THROWER = {
  'strategies/thrower/index.ts': [
    "import { defineStrategy, z } from 'sextant/strategy';",
    "import { priceOf } from './prices.js';",
    '',
    'const explode = (what: string): never => {',
    '  throw new Error(`no ${what} for you`);',
    '};',
    '',
    'type Where = { where: string };',
    'export default defineStrategy({',
    "  name: 'thrower',",
    "  params: z.strictObject({ where: z.string().refine((w) => (w === 'schema' ? explode('schema') : true)) }),",
    "  lookback: (p: Where) => (p.where === 'lookback' ? explode('lookback') : 10),",
    '  onStart(ctx) {',
    "    if (ctx.params.where === 'start') throw new TypeError('not ready');",
    '  },',
    '  onMarket(ctx) {',
    "    if (ctx.params.where === 'hook') throw new RangeError('no price yet');",
    "    if (ctx.params.where === 'helper') priceOf(ctx.symbols[0]!);",
    "    if (ctx.params.where === 'bars') ctx.bars(ctx.symbols[0]!, '1m');",
    '  },',
    '});',
    '',
  ].join('\n'),
  'strategies/thrower/prices.ts': [
    'const table: Record<string, number> = {};',
    'export function priceOf(symbol: string): number {',
    '  const p = table[symbol];',
    '  if (p === undefined) throw new Error(`no price for ${symbol}`);',
    '  return p;',
    '}',
    '',
  ].join('\n'),
};

/** The same for a JavaScript strategy: it throws in its own file, or in a file of a folder beside it. */
const JS_THROWER = {
  'strategies/js-thrower.mjs': [
    "import { priceOf } from './lib/prices.mjs';",
    'export default {',
    "  name: 'js-thrower',",
    '  params: { safeParse: (raw) => ({ success: true, data: raw }) },',
    '  onMarket(ctx) {',
    "    if (ctx.params.where === 'hook') throw new RangeError('no price yet');",
    '    priceOf(ctx.symbols[0]);',
    '  },',
    '};',
    '',
  ].join('\n'),
  'strategies/lib/prices.mjs': 'export function priceOf(symbol) {\n  throw new Error(`no price for ${symbol}`);\n}\n',
};

interface LogLine {
  msg: string;
  strategy?: string;
  err?: string;
  at?: string;
  reason?: string;
}
interface Run {
  status: Array<{ id: string; faulted: boolean; hook?: string; error?: string; reason?: string }>;
  logs: LogLine[];
  config: string[];
}

/**
 * Loads `name` from the strategies folder under `root` (the compile cache in `cache`) and runs one instance per
 * `where` in one runner (one error faults an instance), each through onStart and one market update; then builds a
 * runner of one instance per `configWhere`, whose problems are the config error's lines.
 */
function run(root: string, cache: string[], name: string, where: string[], configWhere: string[] = []): Run {
  const instance = (w: string) => ({ cfg: { id: w, name, symbols: ['BTCUSDT_SPBL'], params: { where: w } }, def: 'DEF' });
  const instances = (ws: string[]) => JSON.stringify(ws.map(instance)).replaceAll('"DEF"', 'def');
  return inChild(
    [
      `const { StrategyRunner } = await import(${dist('strategy/runner.js')});`,
      `const { createLogger } = await import(${dist('util/logger.js')});`,
      `const { DEFAULT_INSTRUMENTS, toInstrument } = await import(${dist('exchange/sim/instruments.js')});`,
      `const def = await loadStrategy(${JSON.stringify(name)}, [${JSON.stringify(join(root, 'strategies'))}]);`,
      'const instruments = new Map(DEFAULT_INSTRUMENTS.map((s) => [s.symbol, toInstrument(s)]));',
      'const lines = [];',
      "const logger = createLogger({ level: 'error', destination: { write: (s) => void lines.push(JSON.parse(s)) } });",
      `const runner = new StrategyRunner({ instances: ${instances(where)}, instruments, logger, maxErrors: 1 });`,
      'runner.start();',
      'runner.onMarket(() => ({ nowMs: 0, tickers: new Map(), openOrders: [], positions: [], balances: [] }));',
      'out.status = runner.status();',
      'out.logs = lines.map(({ msg, strategy, err, at, reason }) => ({ msg, strategy, err, at, reason }));',
      'out.config = [];',
      'try {',
      `  new StrategyRunner({ instances: ${instances(configWhere)}, instruments, logger, maxErrors: 1 });`,
      '} catch (err) {',
      "  out.config = err.message.split('\\n');",
      '}',
    ].join('\n'),
    cache,
  ) as unknown as Run;
}

/** What the runner should report for the TypeScript strategy: each instance's fault and log lines. */
function expectedTs(root: string): { status: Run['status']; logs: LogLine[]; config: string[] } {
  const dir = join(root, 'strategies', 'thrower');
  const [index, prices] = [join(dir, 'index.ts'), join(dir, 'prices.ts')];
  const faults: Array<[id: string, hook: string, error: string, at: string]> = [
    // onStart, line 14: `    if (ctx.params.where === 'start') throw new TypeError('not ready');` (`new` at column 45).
    ['start', 'onStart', 'not ready', `${index}:14:45`],
    // onMarket, line 17: `    if (ctx.params.where === 'hook') throw new RangeError('no price yet');` (`new` at column 44).
    ['hook', 'onMarket', 'no price yet', `${index}:17:44`],
    // prices.ts, line 4: `  if (p === undefined) throw new Error(...)` (`new` at column 30).
    ['helper', 'onMarket', 'no price for BTCUSDT_SPBL', `${prices}:4:30`],
  ];
  const bars = `bars(BTCUSDT_SPBL, 1m): strategies[bars] did not declare them (symbols: BTCUSDT_SPBL; timeframes: none)`;
  const status = [
    ...faults.map(([id, hook, error, at]) => ({
      id,
      hook,
      error: `${error} (at ${at})`,
      reason: `1 errors, the last in ${hook}: ${error} (at ${at})`,
    })),
    // Thrown by the runner's bars(), called by onMarket on line 19 (`bars` of `ctx.bars(` at column 42): the first
    // frame in the strategy's files is that call.
    { id: 'bars', hook: 'onMarket', error: `${bars} (at ${index}:19:42)`, reason: `1 errors, the last in onMarket: ${bars} (at ${index}:19:42)` },
  ];
  return {
    status: status.map((s) => ({ ...s, errors: 1, faulted: true })),
    logs: status.flatMap((s) => [
      { msg: 'strategy hook failed', strategy: s.id, err: s.error, at: s.error.replace(/^.* \(at (.*)\)$/, '$1') },
      { msg: 'strategy faulted: no more hooks are called', strategy: s.id, reason: s.reason },
    ]),
    config: [
      // explode(), line 5: `  throw new Error(...)` (`new` at column 9), called by the lookback function and by the schema's refine.
      `strategies[lookback]: strategy thrower lookback failed: no lookback for you (at ${index}:5:9)`,
      `strategies[schema].params: strategy thrower params check failed: no schema for you (at ${index}:5:9)`,
    ],
  };
}

describe('a strategy that throws while it runs is reported at its own file, line and column', () => {
  // In config order: the runner reports (and logs) them in this order.
  const where = ['start', 'hook', 'helper', 'bars'];
  const configWhere = ['lookback', 'schema'];

  it('imported from the compile cache: compiled and stored by the first run, found there by the next', () => {
    const root = files(strategyPackage(tmp()), THROWER);
    const cache = join(root, 'cache');
    const first = run(root, [cache], 'thrower', where, configWhere);
    const modules = readdirSync(cache).filter((f) => f.endsWith('.mjs'));
    expect(modules).toHaveLength(1);
    const again = run(root, [cache], 'thrower', where, configWhere);
    expect(readdirSync(cache).filter((f) => f.endsWith('.mjs'))).toEqual(modules);
    const expected = expectedTs(root);
    expect(first).toEqual(expected);
    expect(again).toEqual(expected);
  });

  it('imported from a data: URL where no cache folder can be written: frames mapped through the compiled source map', () => {
    const root = files(strategyPackage(tmp()), THROWER);
    const blocked = join(root, 'not-a-folder');
    writeFileSync(blocked, '');
    const r = run(root, [join(blocked, 'cache'), join(blocked, 'tmp')], 'thrower', where, configWhere);
    expect(readdirSync(root).sort()).toEqual(['node_modules', 'not-a-folder', 'package.json', 'strategies']);
    expect(r).toEqual(expectedTs(root));
  });

  it('a JavaScript strategy: the first frame in its file, or in a file of its folder', () => {
    const root = files(tmp(), JS_THROWER);
    const r = run(root, [join(root, 'cache')], 'js-thrower', ['hook', 'helper']);
    const [file, lib] = [join(root, 'strategies', 'js-thrower.mjs'), join(root, 'strategies', 'lib', 'prices.mjs')];
    expect(r.status.map((s) => [s.id, s.error])).toEqual([
      ['hook', `no price yet (at ${file}:6:44)`],
      ['helper', `no price for BTCUSDT_SPBL (at ${lib}:2:9)`],
    ]);
    expect(r.logs.filter((l) => l.msg === 'strategy hook failed').map((l) => l.at)).toEqual([`${file}:6:44`, `${lib}:2:9`]);
  });
});
