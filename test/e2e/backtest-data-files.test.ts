// Backtests over several data files and from tick caches, through the whole pipeline in this process: the sample
// ticks (a spot pair and a contract, one record of each every second) split into a file per symbol and replayed as a
// list give the same report, fills and equity as the one file, and as a file holding both halves one after the
// other (out of time order: sorted into its cache); a window of them too. A cache folder that cannot be written
// leaves the files read as text: the run completes with the same results and says why.
import '../fixtures/backtest-in-jest.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cannotWrite, unwritableFolder } from '../unit/data/unwritable-folder.js';

const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest } = await import('../../src/app/backtest.js');
const { createLogger, silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-bt-files-'));
const FILES = ['report.json', 'trades.csv', 'round-trips.csv', 'equity.csv'] as const;
type Outputs = Record<(typeof FILES)[number], string>;

const lines = readFileSync('data/sample/ticks.jsonl', 'utf8').trim().split('\n');
const whole = join(dir, 'ticks.jsonl');
const btc = join(dir, 'btc.jsonl');
const eth = join(dir, 'eth.jsonl');
const halves = join(dir, 'btc-then-eth.jsonl');
writeFileSync(whole, lines.join('\n') + '\n');
writeFileSync(btc, lines.filter((l) => l.includes('BTCUSDT_SPBL')).join('\n') + '\n');
writeFileSync(eth, lines.filter((l) => l.includes('cmt_ethusdt')).join('\n') + '\n');
writeFileSync(halves, readFileSync(btc, 'utf8') + readFileSync(eth, 'utf8'));

interface Run {
  data: string | string[];
  cache?: string;
  window?: { fromMs: number; toMs: number };
  logger?: import('../../src/util/logger.js').Logger;
}

/** A backtest of config/backtest.yaml (a spot market maker and a futures grid) over `data`; its files, the data named alike. */
async function backtest(name: string, run: Run): Promise<Outputs & { events: number }> {
  const loaded = loadConfig('config/backtest.yaml', {});
  const config = { ...loaded.config, backtest: { ...loaded.config.backtest, data: run.data, cache: run.cache ?? 'auto' } };
  const outDir = join(dir, name);
  const result = await runBacktest({ ...loaded, config }, run.logger ?? silentLogger, { outDir, ...(run.window ?? {}) });
  const named = (text: string) => text.replaceAll(JSON.stringify(Array.isArray(run.data) ? run.data.join(', ') : run.data), '"DATA"');
  return { ...(Object.fromEntries(FILES.map((f) => [f, named(readFileSync(join(outDir, f), 'utf8'))])) as Outputs), events: result.events };
}

describe('backtests over several data files and from tick caches', () => {
  let reference: Outputs & { events: number };
  const undo: Array<() => void> = [];
  beforeAll(async () => {
    reference = await backtest('whole', { data: whole });
  });
  afterAll(() => undo.forEach((f) => f()));

  it('the reference run trades both symbols', () => {
    expect(reference.events).toBe(lines.length);
    const report = JSON.parse(reference['report.json']) as { data: { file: string }; strategies: Array<{ id: string; pnl: { fills: number } }> };
    expect(report.data.file).toBe('DATA');
    expect(report.strategies.map((s) => [s.id, s.pnl.fills > 10])).toEqual([
      ['mm-btc', true],
      ['grid-eth', true],
    ]);
  });

  it('a file per symbol, replayed as a list, gives byte-identical files', async () => {
    const listed = await backtest('listed', { data: [btc, eth] });
    expect(listed).toEqual(reference);
    // Again, from the caches the first run built.
    expect(await backtest('listed-again', { data: [btc, eth] })).toEqual(reference);
  });

  it('one file holding both halves, out of time order, sorted into its cache: byte-identical', async () => {
    expect(await backtest('halves', { data: halves })).toEqual(reference);
  });

  it('a window of the list equals the window of the one file', async () => {
    const t0 = Number(/"ts":(\d+)/.exec(lines[0]!)![1]);
    const window = { fromMs: t0 + 600_500, toMs: t0 + 1_200_000 };
    const one = await backtest('window-whole', { data: whole, window });
    // Two records a second, from 601 s to 1,200 s in.
    expect(one.events).toBe(2 * 600);
    expect(await backtest('window-listed', { data: [btc, eth], window })).toEqual(one);
  });

  it('a cache folder that cannot be written: the run completes with the same files, and says why', async () => {
    const folder = unwritableFolder(join(dir, 'read-only-cache'));
    undo.push(folder.undo);
    expect(cannotWrite(folder.path)).toBe(true);
    const logged: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const run = await backtest('read-only', { data: [btc, eth], cache: folder.path, logger: createLogger({ level: 'warn', destination }) });
    expect(run).toEqual(reference);
    const warnings = logged.map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => /no tick cache/.test(l.msg));
    expect(warnings.map((w) => [w.level, w.msg.slice(0, w.msg.indexOf(':'))])).toEqual([
      ['warn', btc],
      ['warn', eth],
    ]);
  });
});
