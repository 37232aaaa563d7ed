// checkConfig and `sextant config check` / `run`: everything `run` would refuse, each as file:line:col: path: message.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { main } from '../../../src/app/cli.js';
import { checkConfig } from '../../../src/app/config-check.js';
import { instrumentCachePath, writeInstrumentCache } from '../../../src/app/instrument-list.js';
import { formatIssue, parseConfig } from '../../../src/config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-check-'));
const strategies = join(dir, 'strategies');
mkdirSync(strategies);
writeFileSync(
  join(strategies, 'dca.mjs'),
  [
    "import { defineStrategy, z } from 'sextant/strategy';",
    'export default defineStrategy({',
    "  name: 'dca',",
    "  params: z.strictObject({ quoteAmount: z.string().regex(/^\\d+(\\.\\d+)?$/).default('50'), every: z.number().int().min(1).default(1) }),",
    '  onSchedule: { buy() {}, sell() {} },',
    '});',
    '',
  ].join('\n'),
);
writeFileSync(
  join(strategies, 'barry.mjs'),
  [
    "import { defineStrategy, z } from 'sextant/strategy';",
    "export default defineStrategy({ name: 'barry', params: z.strictObject({}), onBar() {} });",
    '',
  ].join('\n'),
);
writeFileSync(join(strategies, 'broken.mjs'), "throw new Error('broken on purpose');\n");

/** A config file trading the embedded simulator (or not), with the strategies given as YAML lines. */
function configText(lines: string[], opts: { embedded?: boolean; journal?: string } = {}): string {
  return [
    `sim: { embedded: ${opts.embedded ?? true} }`,
    `journal: { path: ${JSON.stringify(opts.journal ?? join(dir, 'journal.sqlite'))} }`,
    `strategyDirs: [${JSON.stringify(strategies)}]`,
    ...lines,
    '',
  ].join('\n');
}

async function issuesOf(text: string): Promise<string[]> {
  const check = await checkConfig(parseConfig(text, 'cfg.yaml', {}));
  return check.issues.map(formatIssue);
}

describe('checkConfig', () => {
  it('reports every problem at once, each with the line and column of what is wrong', async () => {
    const text = configText([
      'daemon: { reconcileCron: "*/5 * * *" }', //                 4
      'strategies:', //                                            5
      '  - id: a', //                                              6
      '    name: dcaa', //                                         7: no such strategy
      '    symbols: [BTCUSDT_SPBL]', //                            8
      '  - id: b', //                                              9
      '    name: dca', //                                          10
      '    symbols: [BTCUSDT_SPBL, btcusdt_spbl]', //              11: unknown symbol
      '    params:', //                                            12
      '      quoteAmount: 1e-3', //                                13: not plain digits
      '      every: 0', //                                         14: the strategy's own rule
      '      evry: 2', //                                          15: unknown param
      '    schedule:', //                                          16
      '      buy: "0 0 25 * * *"', //                              17: invalid cron
      '      sel: "0 0 9 * * *"', //                               18: no such hook
      '  - id: c', //                                              19
      '    name: broken', //                                       20: fails to load
      '    symbols: [cmt_ethusdt]', //                             21
    ]);
    expect(await issuesOf(text)).toEqual([
      'cfg.yaml:4:26: daemon.reconcileCron: invalid cron expression "*/5 * * *": expected 5 or 6 fields but got 4 (fields: [second] minute hour day-of-month month day-of-week)',
      `cfg.yaml:7:11: strategies[0].name: strategy "dcaa" not found in ${strategies} or the shipped examples (looked for dcaa.ts, .mts, .js, .mjs or dcaa/index.*; found: barry, broken, dca; the shipped examples: bollinger-maker, ema-cross, futures-grid, rsi-reversion, spot-dca, spot-market-maker, trend-follower)`,
      'cfg.yaml:11:29: strategies[1].symbols[1]: unknown symbol "btcusdt_spbl": not among the simulator\'s instruments (its built-in list); did you mean "BTCUSDT_SPBL"?',
      expect.stringMatching(
        /^cfg\.yaml:13:20: strategies\[1\]\.params\.quoteAmount: a number where text is expected: write it quoted, as plain digits, e\.g\. "0\.001"/,
      ),
      expect.stringMatching(/^cfg\.yaml:14:14: strategies\[1\]\.params\.every: Too small/),
      'cfg.yaml:15:7: strategies[1].params.evry: unknown key',
      expect.stringMatching(
        /^cfg\.yaml:17:12: strategies\[1\]\.schedule\.buy: invalid cron expression "0 0 25 \* \* \*": 25 is an invalid expression for hour/,
      ),
      'cfg.yaml:18:7: strategies[1].schedule.sel: dca has no onSchedule hook "sel" (its hooks: buy, sell; did you mean "sell"?)',
      expect.stringMatching(/^cfg\.yaml:20:11: strategies\[2\]\.name: .*broken\.mjs: cannot load: broken on purpose$/),
    ]);
  });

  it('a clean config: no issues, and params as the strategy will get them (numbers read as written where it expects text)', async () => {
    const check = await checkConfig(
      parseConfig(
        configText([
          'strategies:',
          '  - { id: b, name: dca, symbols: [BTCUSDT_SPBL], params: { quoteAmount: 50.250, every: 2 }, schedule: { buy: "0 0 9 * * *" } }',
        ]),
        'cfg.yaml',
        {},
      ),
    );
    expect(check.issues).toEqual([]);
    expect(check.loaded.config.strategies[0]!.params).toEqual({ quoteAmount: '50.250', every: 2 });
    expect(check.notes).toEqual(["symbols: checked against the simulator's instruments (its built-in list)"]);
  });

  it("a strategy with an onBar hook needs timeframes: its own, or the instance's", async () => {
    expect(await issuesOf(configText(['strategies:', '  - { id: b, name: barry, symbols: [BTCUSDT_SPBL] }']))).toEqual([
      'cfg.yaml:5:5: strategies[0].timeframes: barry has an onBar hook but no timeframes: name them, e.g. timeframes: [1m]',
    ]);
    expect(await issuesOf(configText(['strategies:', '  - { id: b, name: barry, symbols: [BTCUSDT_SPBL], timeframes: [1m, 1h] }']))).toEqual([]);
  });

  it('symbols of a simulator with its own instruments are checked against sim.instruments', async () => {
    const text = configText(['strategies:', '  - { id: b, name: dca, symbols: [BTCUSDT_SPBL] }']).replace(
      'sim: { embedded: true }',
      [
        'sim:',
        '  embedded: true',
        '  instruments:',
        '    - { surface: spot, symbol: DOGEUSDT_SPBL, base: DOGE, quote: USDT, priceDecimals: 5, sizeDecimals: 0, minSize: 1, maxSize: 100000, makerFeeRate: 0.001, takerFeeRate: 0.001, startPrice: 0.1 }',
      ].join('\n'),
    );
    expect(await issuesOf(text)).toEqual([
      expect.stringMatching(
        /^cfg\.yaml:\d+:\d+: strategies\[0\]\.symbols\[0\]: unknown symbol "BTCUSDT_SPBL": not among the simulator's instruments \(sim\.instruments\)$/,
      ),
    ]);
  });

  it('against the venue: the cached list when there is one (said which), and plainly not checked when there is none', async () => {
    const journal = join(dir, 'venue', 'journal.sqlite');
    const text = configText(['strategies:', '  - { id: b, name: dca, symbols: [BTCUSDT_SPBL, ETHUSDT_SPBL] }'], { embedded: false, journal });
    const loaded = parseConfig(text, 'cfg.yaml', {});
    const cache = instrumentCachePath(loaded.config)!;
    expect(cache).toBe(`${journal}.instruments.json`);

    const none = await checkConfig(loaded);
    expect(none.issues).toEqual([]);
    expect(none.notes[0]).toBe(
      `symbols: no instrument list of https://api-spot.weex.com https://api-contract.weex.com is available (none cached at ${cache}; \`sextant plan\` or \`sextant run\` with access to the venue caches its list): symbols were not checked`,
    );

    writeInstrumentCache(loaded.config, { spot: ['BTCUSDT_SPBL'], futures: ['cmt_btcusdt'] }, Date.parse('2026-01-05T00:00:00Z'));
    const cached = await checkConfig(loaded);
    expect(cached.issues.map(formatIssue)).toEqual([
      `cfg.yaml:5:49: strategies[0].symbols[1]: unknown symbol "ETHUSDT_SPBL": not among the venue's instruments as cached in ${cache} at 2026-01-05T00:00:00.000Z (\`sextant plan\` refreshes it)`,
    ]);
    expect(cached.notes[0]).toBe(
      `symbols: checked against the venue's instruments as cached in ${cache} at 2026-01-05T00:00:00.000Z (\`sextant plan\` refreshes it) (cached at 2026-01-05T00:00:00.000Z: a symbol listed since is not in it)`,
    );

    // A cache of another venue is not used.
    const other = parseConfig(
      text.replace('sim: { embedded: false }', 'sim: { embedded: false }\nexchange: { spotBaseUrl: "http://127.0.0.1:1" }'),
      'cfg.yaml',
      {},
    );
    const elsewhere = await checkConfig(other);
    expect(elsewhere.issues).toEqual([]);
    expect(elsewhere.notes[0]).toMatch(/is of another venue \(https:\/\/api-spot\.weex\.com https:\/\/api-contract\.weex\.com\): symbols were not checked$/);
  });

  it('a polling plan beyond its share names the poll with its line', async () => {
    const text = configText(['daemon:', '  polls: { tickersMs: 10, ordersMs: 2000 }', 'strategies:', '  - { id: b, name: dca, symbols: [cmt_btcusdt] }']);
    expect(await issuesOf(text)).toEqual([expect.stringMatching(/^cfg\.yaml:5:12: daemon\.polls\.tickersMs: polling uses \d+ IP weight/)]);
  });
});

describe('sextant config check and run', () => {
  function io() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) } };
  }

  it('config check: schema errors and everything else at once, in file order, exit 1', async () => {
    const file = join(dir, 'all.yaml');
    writeFileSync(
      file,
      configText([
        'mode: paper', //                                               4: schema
        'daemon: { reconcileCron: "61 * * * * *" }', //                5: cron
        'strategies:', //                                               6
        '  - { id: a, name: dca, symbols: [BTCUSDT_SPBL], schedule: { buyy: "0 0 9 * * *" } }', // 7: no such hook
        '  - { id: a, name: dca, symbols: [ETHUSDT_SPBLX] }', //       8: duplicate id, unknown symbol
        '  - { id: c, name: dca, symbols: [] }', //                    9: schema
      ]),
    );
    const r = io();
    expect(await main(['node', 'sextant', 'config', 'check', file], r.io)).toBe(1);
    expect(r.err).toEqual([
      expect.stringMatching(new RegExp(`^${file}:4:7: mode: `)),
      expect.stringMatching(
        new RegExp(`^${file}:5:26: daemon\\.reconcileCron: invalid cron expression "61 \\* \\* \\* \\* \\*": 61 is an invalid expression for second`),
      ),
      `${file}:7:62: strategies[0].schedule.buyy: dca has no onSchedule hook "buyy" (its hooks: buy, sell; did you mean "buy"?)`,
      `${file}:8:11: strategies[1].id: duplicate strategy id "a": strategies[0] has it too (an id tags client ids, logs and metrics)`,
      `${file}:8:35: strategies[1].symbols[0]: unknown symbol "ETHUSDT_SPBLX": not among the simulator's instruments (its built-in list); did you mean "ETHUSDT_SPBL"?`,
      `${file}:9:34: strategies[2].symbols: Too small: expected array to have >=1 items`,
      `6 errors in ${file}`,
    ]);
    expect(r.out).toEqual([]);
  });

  it('config check: a valid file is ok, and says what symbols were checked against', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, configText(['strategies:', '  - { id: a, name: dca, symbols: [BTCUSDT_SPBL], params: { quoteAmount: 0.5 } }']));
    const r = io();
    expect(await main(['node', 'sextant', 'config', 'check', file], r.io)).toBe(0);
    expect(r.out).toEqual([`${file}: ok`, "  symbols: checked against the simulator's instruments (its built-in list)"]);
  });

  it('run refuses the same way before anything starts: no journal, no venue', async () => {
    const journal = join(dir, 'run', 'journal.sqlite');
    const file = join(dir, 'run.yaml');
    writeFileSync(
      file,
      configText(['strategies:', '  - { id: a, name: dca, symbols: [BTCUSDT_SPBL], schedule: { buy: "0 0 9 * *" , hold: "* * * * *" } }'], { journal }),
    );
    const r = io();
    expect(await main(['node', 'sextant', 'run', '-c', file], r.io)).toBe(1);
    expect(r.err).toEqual([`${file}:5:81: strategies[0].schedule.hold: dca has no onSchedule hook "hold" (its hooks: buy, sell)`, `1 error in ${file}`]);
    expect(existsSync(join(dir, 'run'))).toBe(false);
  });

  it('an account lease: refused for the embedded simulator, for a store that is neither Redis nor the PostgreSQL journal, and for "journal" without journal.url', async () => {
    const issues = async (lease: string, over: { embedded?: boolean; journal?: string } = {}) =>
      (await checkConfig(parseConfig(configText(['mode: live', `daemon: { lease: ${lease} }`], { embedded: false, ...over }), 'cfg.yaml', {}))).issues
        .filter((i) => i.path.startsWith('daemon.lease'))
        .map(formatIssue);
    expect(await issues('{ store: "redis://127.0.0.1:6379" }', { embedded: true })).toEqual([
      expect.stringMatching(/^cfg\.yaml:\d+:\d+: daemon\.lease: .*outlives the daemon/),
    ]);
    expect(await issues('{ store: "http://127.0.0.1:6379" }')).toEqual([expect.stringMatching(/daemon\.lease\.store: a Redis URL/)]);
    expect(await issues('{ store: journal }')).toEqual([expect.stringMatching(/daemon\.lease\.store: .*set journal\.url/)]);
    expect(await issues('{ store: "redis://127.0.0.1:6379" }')).toEqual([]);
  });
});
