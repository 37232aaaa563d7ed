// Paths in a config file: a relative path written in the file resolves against the file's folder; a default, or a
// value an environment override set, stays relative to the working directory; absolute paths and words (":memory:",
// "auto", "off") are kept as written.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { resolveConfigPaths, resolveWrittenPath } from '../../../src/config/config-paths.js';
import { ConfigError, loadConfig, parseConfig } from '../../../src/config/load.js';

/** A config folder outside the working directory: tmp/<random>/team/configs. */
function nestedDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'sextant-paths-')), 'team', 'configs');
  mkdirSync(dir, { recursive: true });
  expect(relative(process.cwd(), dir).startsWith('..')).toBe(true);
  return dir;
}

const EVERY_PATH = [
  'sim: { replayFile: replay/ticks.jsonl }',
  'journal: { path: state/journal.sqlite }',
  'daemon: { http: { tokenFile: state/http.token } }',
  'backtest:',
  '  data: [market/a.jsonl, ../shared/b.jsonl]',
  '  cache: cache',
  '  out: out/backtest',
  '  funding: [market/funding.jsonl]',
  'shadow: { out: out/shadow }',
  'strategyDirs: [mine, ../common]',
].join('\n');

describe('relative paths written in a config file', () => {
  it("resolve against the file's folder, not the working directory", () => {
    const dir = nestedDir();
    const file = join(dir, 'bot.yaml');
    writeFileSync(file, EVERY_PATH);
    // Folders of strategies are read: they are there.
    for (const d of ['mine', '../common']) mkdirSync(join(dir, d), { recursive: true });
    const { config } = loadConfig(file, {});
    const up = join(dir, '..');
    expect(config.sim.replayFile).toBe(join(dir, 'replay/ticks.jsonl'));
    expect(config.journal.path).toBe(join(dir, 'state/journal.sqlite'));
    expect(config.daemon.http.tokenFile).toBe(join(dir, 'state/http.token'));
    expect(config.backtest.data).toEqual([join(dir, 'market/a.jsonl'), join(up, 'shared/b.jsonl')]);
    expect(config.backtest.cache).toBe(join(dir, 'cache'));
    expect(config.backtest.out).toBe(join(dir, 'out/backtest'));
    expect(config.backtest.funding).toEqual([join(dir, 'market/funding.jsonl')]);
    expect(config.shadow.out).toBe(join(dir, 'out/shadow'));
    expect(config.strategyDirs).toEqual([join(dir, 'mine'), join(up, 'common')]);
  });

  it('a single data file too, and a value written the same as its default', () => {
    const dir = nestedDir();
    mkdirSync(join(dir, 'strategies'));
    const { config } = parseConfig('backtest: { data: market/ticks.jsonl, out: reports/backtest }\nstrategyDirs: [strategies]\n', join(dir, 'c.yaml'), {});
    expect(config.backtest.data).toBe(join(dir, 'market/ticks.jsonl'));
    expect(config.backtest.out).toBe(join(dir, 'reports/backtest'));
    expect(config.strategyDirs).toEqual([join(dir, 'strategies')]);
  });

  it('are printed relative to the working directory when inside it, absolute when not', () => {
    const { config } = parseConfig(
      'backtest: { data: ../../data/sample/ticks.jsonl, out: ./out//run/, funding: [../f.jsonl, ../../../outside.jsonl] }\n',
      join('config', 'examples', 'x.yaml'),
      {},
    );
    expect(config.backtest.data).toBe(join('data', 'sample', 'ticks.jsonl'));
    expect(config.backtest.out).toBe(join('config', 'examples', 'out', 'run'));
    expect(config.backtest.funding).toEqual([join('config', 'f.jsonl'), join(process.cwd(), '..', 'outside.jsonl')]);
    expect(isAbsolute(config.backtest.funding[1]!)).toBe(true);
  });

  it('a config in the working directory keeps its paths as written', () => {
    const { config } = parseConfig('backtest: { data: data/x.jsonl, out: reports/x }\njournal: { path: data/j.sqlite }\n', 'bot.yaml', {});
    expect(config.backtest).toMatchObject({ data: 'data/x.jsonl', out: 'reports/x' });
    expect(config.journal.path).toBe('data/j.sqlite');
  });

  it('the paths of a configuration with errors are resolved too (what config check goes on with)', () => {
    const dir = nestedDir();
    let partial: ConfigError['partial'];
    try {
      parseConfig('mode: paper\nbacktest: { data: a.jsonl }\nstrategyDirs: [mine]\n', join(dir, 'bad.yaml'), {});
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      partial = err.partial;
    }
    expect(partial?.loaded.config.backtest.data).toBe(join(dir, 'a.jsonl'));
    expect(partial?.loaded.config.strategyDirs).toEqual([join(dir, 'mine')]);
  });
});

describe('paths that cannot be what the file meant', () => {
  it('a folder of strategies that is not there is an error at its line (the shipped examples would stand in unseen)', () => {
    const dir = nestedDir();
    mkdirSync(join(dir, 'mine'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'mode: backtest\nstrategyDirs: [mine, ../missing]\n');
    expect(() => loadConfig(file, {})).toThrow(ConfigError);
    try {
      loadConfig(file, {});
    } catch (err) {
      expect((err as ConfigError).issues).toEqual([
        { file, line: 2, col: 22, path: 'strategyDirs[1]', message: `no such folder: ${join(dir, '..', 'missing')}` },
      ]);
    }
  });

  it('a path found from the working folder but not beside the file is an error naming both (a journal would start empty)', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sextant-paths-cwd-'));
    mkdirSync(join(cwd, 'config'));
    mkdirSync(join(cwd, 'data'));
    writeFileSync(join(cwd, 'data', 'journal.sqlite'), '');
    const file = join(cwd, 'config', 'live.yaml');
    writeFileSync(file, 'mode: dry-run\njournal: { path: data/journal.sqlite }\n');
    const problems = resolveConfigPaths(parseConfig('mode: dry-run\n', file, {}).config, { journal: { path: 'data/journal.sqlite' } }, file, cwd);
    expect(problems).toEqual([
      {
        path: ['journal', 'path'],
        message: `data/journal.sqlite is read from this file's folder (config/data/journal.sqlite: not there), but the working folder has data/journal.sqlite: write the path from the file's folder, or an absolute one`,
      },
    ]);
    // Written from the file's folder, it is the same file and nothing is said.
    expect(resolveConfigPaths(parseConfig('mode: dry-run\n', file, {}).config, { journal: { path: '../data/journal.sqlite' } }, file, cwd)).toEqual([]);
  });
});

describe('paths a config file does not write', () => {
  it('defaults stay relative to the working directory (the user folder)', () => {
    const { config } = parseConfig('mode: backtest\n', join(nestedDir(), 'empty.yaml'), {});
    expect(config.journal.path).toBe('data/journal.sqlite');
    expect(config.strategyDirs).toEqual(['strategies']);
    expect(config.backtest).toMatchObject({ data: 'data/sample/ticks.jsonl', out: 'reports/backtest', cache: 'auto', funding: [] });
    expect(config.shadow.out).toBe('reports/shadow');
    expect(config.daemon.http.tokenFile).toBeUndefined();
    expect(config.sim.replayFile).toBeUndefined();
  });

  it('absolute paths, ":memory:" and the cache words are kept as written', () => {
    const dir = nestedDir();
    const abs = join(tmpdir(), 'elsewhere', 'ticks.jsonl');
    const at = (text: string) => parseConfig(text, join(dir, 'c.yaml'), {}).config;
    expect(at(`backtest: { data: ${JSON.stringify(abs)}, funding: [${JSON.stringify(abs)}] }\n`).backtest).toMatchObject({ data: abs, funding: [abs] });
    expect(at('journal: { path: ":memory:" }\n').journal.path).toBe(':memory:');
    expect(at('backtest: { cache: auto }\n').backtest.cache).toBe('auto');
    expect(at('backtest: { cache: "off" }\n').backtest.cache).toBe('off');
    // A folder named like a word stays a folder.
    expect(parseConfig('backtest: { cache: ./auto }\n', 'c.yaml', {}).config.backtest.cache).toBe('./auto');
  });

  it('a value an environment override put there stays relative to the working directory', () => {
    const file = '/home/u/configs/bot.yaml';
    const written = { backtest: { data: 'mine.jsonl' }, strategyDirs: ['a', 'b'] };
    // As loaded: backtest.out and the second folder came from elsewhere (the environment), not from the file.
    const config = parseConfig('', 'defaults.yaml', {}).config;
    config.backtest.data = 'from-env.jsonl';
    config.backtest.out = 'env-reports';
    config.strategyDirs = ['a', 'env-dir'];
    resolveConfigPaths(config, written, file, '/home/u');
    expect(config.backtest.data).toBe('from-env.jsonl');
    expect(config.backtest.out).toBe('env-reports');
    expect(config.strategyDirs).toEqual(['configs/a', 'env-dir']);
  });
});

describe('resolveWrittenPath', () => {
  it.each([
    ['data/x.jsonl', '/u/cfg/c.yaml', 'cfg/data/x.jsonl'],
    ['../x.jsonl', '/u/cfg/c.yaml', 'x.jsonl'],
    ['../../x.jsonl', '/u/cfg/c.yaml', '/x.jsonl'],
    ['..', '/u/c.yaml', '/'],
    ['.', '/u/c.yaml', '.'],
    ['sub', 'cfg/c.yaml', 'cfg/sub'],
    ['/abs/x.jsonl', '/u/cfg/c.yaml', '/abs/x.jsonl'],
    ['..data/x', '/u/c.yaml', '..data/x'],
  ])('%s written in %s, working directory /u: %s', (path, file, expected) => {
    expect(resolveWrittenPath(path, file, '/u')).toBe(expected);
  });
});

describe('the shipped configs', () => {
  it.each([
    ['config/backtest.yaml', 'data/sample/ticks.jsonl'],
    ['config/examples/bollinger-maker.yaml', 'data/sample/bollinger-maker-btc-5s.jsonl'],
    ['config/examples/ema-cross.yaml', 'data/sample/ema-cross-eth-5s.jsonl'],
    ['config/examples/rsi-reversion.yaml', 'data/sample/rsi-reversion-btc-5s.jsonl'],
    ['config/examples/spot-market-maker.yaml', 'data/sample/spot-market-maker-btc-range-5s.jsonl'],
  ])('%s replays %s and reports to reports/backtest, from the repository root', (file, data) => {
    const { config } = loadConfig(file, {});
    expect(config.backtest.data).toBe(data);
    expect(existsSync(data)).toBe(true);
    expect(config.backtest.out).toBe('reports/backtest');
  });

  it('config/default.yaml keeps its journal in the working directory', () => {
    expect(loadConfig('config/default.yaml', {}).config.journal.path).toBe('data/journal.sqlite');
  });
});
