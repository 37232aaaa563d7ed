/// <reference lib="dom" />
// `sextant optimize` as a user runs it (the built command line, worker threads): walk-forward with successive
// halving on the shipped sample and on a synthesized 30-day file; the chosen params' out-of-sample figures are those
// of a plain backtest of the same window; optimize.json and optimize.csv agree; the HTML report opens offline in
// Chromium without an error, lists every candidate, draws its charts and heatmap cells (a screenshot goes to
// test-output/optimize.png); the lookahead check flags a strategy that reads the future from the data file, not the
// honest ones; and a `sextant worker` on a Redis queue (127.0.0.1:6379, a queue of this file's own) gives the same
// optimisation as the threads here.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { parseDocument } from 'yaml';
import { Decimal } from '../../src/domain/decimal.js';
import { runCli } from '../fixtures/cli.js';
import { launchChromium } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-optimize-'));
const OUT = 'test-output';
const env = { PATH: process.env.PATH };
const REDIS = 'redis://127.0.0.1:6379';

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

/** A config file from `base` with changes. */
function config(name: string, base: string, change: (doc: ReturnType<typeof parseDocument>) => void): string {
  const doc = parseDocument(readFileSync(base, 'utf8'));
  // Written elsewhere: the base's data file by absolute path.
  doc.setIn(['backtest', 'data'], resolve(dirname(base), String(doc.getIn(['backtest', 'data']))));
  change(doc);
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, doc.toString());
  return file;
}

function spec(name: string, text: string): string {
  const file = join(dir, `${name}-spec.yaml`);
  writeFileSync(file, text);
  return file;
}

interface Window {
  fromMs: number;
  toMs: number;
  from: string;
  to: string;
}
interface Result {
  candidates: Array<{ id: string; params: Record<string, unknown> }>;
  folds: Array<{
    inSample: Window;
    outOfSample: Window;
    rungs: Array<{ window: Window; candidates: string[]; kept: string[] }>;
    ranking: Array<{ candidate: string; rung: number; rank: number; score: { text: string } }>;
    best: { candidate: string; params: Record<string, unknown> };
    inSampleRun: { score: { text: string }; metrics: { strategyPnl: string }; equity: Array<[number, string]> };
    outOfSampleRun: { score: { text: string }; metrics: { strategyPnl: string }; tradePnls: string[] };
    heatmap: { rows: Array<Array<unknown>> };
  }>;
  outOfSample: { strategyPnl: string; equity: Array<[number, string]> };
  monteCarlo: { runs: number; trades: number; percentiles: Array<{ p: number; finalPnl: string }> } | null;
  lookahead: {
    peeks: boolean;
    copies: boolean;
    marginMs: number;
    cuts: Array<{ cutMs: number; untilMs: number; compared: number; difference?: { index: number; full?: { ts: number }; cut?: { ts: number } } }>;
  };
}
const result = (out: string) => JSON.parse(readFileSync(join(out, 'optimize.json'), 'utf8')) as Result;

/** The page as Chromium shows it: errors, ranked rows per fold, heatmap cells, drawn pixels of each chart. */
async function openReport(file: string, screenshot?: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  await page.goto(`file://${file}`);
  await page.waitForFunction(() => (window as unknown as { __chartsReady?: boolean }).__chartsReady === true, null, { timeout: 15_000 });
  const shown = await page.evaluate(() => {
    const drawn = (el: Element | null) => {
      if (!el) return -1;
      let n = 0;
      const canvases = el instanceof HTMLCanvasElement ? [el] : Array.from(el.querySelectorAll('canvas'));
      for (const c of canvases) {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) continue;
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < px.length; i += 4) if (px[i + 3]! > 0 && !(px[i]! > 240 && px[i + 1]! > 240 && px[i + 2]! > 240)) n++;
      }
      return n;
    };
    return {
      rankings: Array.from(document.querySelectorAll('table.ranking')).map((t) =>
        Array.from(t.querySelectorAll('tr[data-candidate]')).map((tr) => tr.getAttribute('data-candidate')),
      ),
      folds: document.querySelectorAll('#folds tr[data-fold]').length,
      heatCells: Array.from(document.querySelectorAll('figure.heatmap')).map((f) => f.querySelectorAll('td.heat-cell[data-candidate]').length),
      walkForward: drawn(document.getElementById('walk-forward')),
      histogram: drawn(document.getElementById('mc-histogram')),
      percentiles: Array.from(document.querySelectorAll('#mc-percentiles tr')).length,
      verdict: document.getElementById('lookahead')?.getAttribute('data-verdict') ?? null,
      text: document.body.textContent ?? '',
    };
  });
  if (screenshot) {
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, screenshot), fullPage: true });
  }
  await page.close();
  return { errors, ...shown };
}

/** What every optimisation's files and page must hold. */
async function expectConsistent(out: string, candidates: number, screenshot?: string) {
  const r = result(out);
  expect(r.candidates).toHaveLength(candidates);
  for (const f of r.folds) {
    // Each fold ranks every candidate once; the chosen one first, from the last rung.
    expect(f.ranking.map((c) => c.candidate).sort()).toEqual(r.candidates.map((c) => c.id));
    expect(f.ranking[0]!.candidate).toBe(f.best.candidate);
    expect(f.rungs[f.rungs.length - 1]!.kept).toEqual([f.best.candidate]);
    // The chosen params again on the whole in-sample window score what their last rung scored (runs repeat exactly).
    expect(f.inSampleRun.score.text).toBe(f.ranking[0]!.score.text);
    expect(f.inSample.toMs).toBe(f.outOfSample.fromMs);
  }
  // The stitched out-of-sample PnL is the folds' sum.
  const sum = r.folds.reduce((a, f) => a.add(Decimal.from(f.outOfSampleRun.metrics.strategyPnl)), Decimal.ZERO);
  expect(Decimal.from(r.outOfSample.strategyPnl).eq(sum)).toBe(true);
  expect(r.monteCarlo!.trades).toBe(r.folds.reduce((n, f) => n + f.outOfSampleRun.tradePnls.length, 0));
  // optimize.csv: a line per fold and candidate.
  const csv = readFileSync(join(out, 'optimize.csv'), 'utf8').trim().split('\n');
  expect(csv).toHaveLength(1 + r.folds.length * candidates);
  expect(csv.filter((l) => l.includes(',true,') && /,true,[^,]*,[^,]*,$/.test(l))).toHaveLength(r.folds.length);
  const html = readFileSync(join(out, 'optimize.html'), 'utf8');
  expect(html).not.toMatch(/<script[^>]+src=/);
  const page = await openReport(join(out, 'optimize.html'), screenshot);
  expect(page.errors).toEqual([]);
  expect(page.folds).toBe(r.folds.length);
  expect(page.rankings).toEqual(r.folds.map((f) => f.ranking.map((c) => c.candidate)));
  expect(page.heatCells).toEqual(r.folds.map((f) => f.heatmap.rows.flat().filter(Boolean).length));
  expect(page.heatCells.every((n) => n === candidates)).toBe(true);
  expect(page.walkForward).toBeGreaterThan(2000);
  if (r.monteCarlo!.runs > 0) {
    expect(page.histogram).toBeGreaterThan(2000);
    expect(page.percentiles).toBe(1 + r.monteCarlo!.percentiles.length + 1);
  }
  return { r, page };
}

describe('sextant optimize', () => {
  it('on the shipped sample: rolling walk-forward with halving, the report in Chromium, no lookahead in the market maker', async () => {
    const out = join(dir, 'sample');
    const s = spec(
      'sample',
      [
        'strategy: mm-btc',
        'params:',
        '  halfSpreadBps: [2, 5]',
        '  skewBps: { from: 0, to: 5, step: 5 }',
        'halving: { eta: 2, minBudget: 0.5 }',
        'objective: { metric: strategyPnl }',
        'walkForward: { mode: rolling, inSample: 8m, outOfSample: 4m }',
        'monteCarlo: { runs: 500, seed: 3, percentiles: [5, 50, 95] }',
        'lookahead: { cuts: 2 }',
      ].join('\n'),
    );
    const r = await runCli(['optimize', '--config', 'config/backtest.yaml', '--spec', s, '--out', out, '--to', '2026-01-05T00:20:00Z'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^4 candidates, 2 folds \(rolling\), \d+ backtests; objective strategyPnl\n/);
    expect(r.stdout).toMatch(/\nfold 1: in 2026-01-05T00:04:00Z → 2026-01-05T00:12:00Z, out 2026-01-05T00:12:00Z → 2026-01-05T00:16:00Z: c00\d /);
    expect(r.stdout).toMatch(/\nlookahead: none found \(2 cuts, \d+ decisions on the whole data, margin 1050 ms\)\n/);
    expect(r.stdout).toContain(`report: ${join(out, 'optimize.html')}`);
    const { r: res, page } = await expectConsistent(out, 4);
    // Halving: 4 on the first 4 minutes, 2 on all 8.
    expect(res.folds[0]!.rungs.map((g) => [g.candidates.length, g.kept.length, (g.window.toMs - g.window.fromMs) / 60_000])).toEqual([
      [4, 2, 4],
      [2, 1, 8],
    ]);
    expect(res.lookahead.peeks).toBe(false);
    expect(page.verdict).toBe('clean');
  }, 240_000);

  it('on a synthesized 30-day file: anchored folds of days, the chosen params out of sample are a plain backtest of that window', async () => {
    const data = join(dir, 'eth-30d.jsonl');
    const synth = await runCli(
      [
        'data',
        'synth',
        '--symbol',
        'cmt_ethusdt',
        '--from',
        '2026-01-01T00:00:00Z',
        '--to',
        '2026-01-31T00:00:00Z',
        '--interval',
        '5m',
        '--seed',
        '5',
        '--out',
        data,
      ],
      env,
    );
    expect(synth.code).toBe(0);
    // Sparse ticks, hourly bars, polls and reconciliation every 5 minutes: a month replays in a few seconds.
    const cfg = config('ema-30d', 'config/examples/ema-cross.yaml', (doc) => {
      doc.setIn(['backtest', 'data'], data);
      doc.setIn(['daemon', 'reconcileCron'], '0 */5 * * * *');
      doc.setIn(['daemon', 'polls'], { tickersMs: 300_000, ordersMs: 300_000, balancesMs: 900_000, positionsMs: 300_000 });
      doc.setIn(['risk', 'staleAfterMs'], 900_000);
      doc.setIn(['strategies', 0, 'timeframes'], ['1h']);
      doc.setIn(['strategies', 0, 'params', 'timeframe'], '1h');
    });
    const out = join(dir, 'ema');
    const s = spec(
      'ema',
      [
        'strategy: ema-eth',
        'params:',
        '  fast: [5, 9]',
        '  slow: { from: 21, to: 30, step: 9 }',
        'halving: { eta: 2, minBudget: 0.5 }',
        'objective: { metric: calmar, minTrades: 2 }',
        'walkForward: { mode: anchored, inSample: 10d, outOfSample: 5d }',
        'monteCarlo: { runs: 1000, seed: 7 }',
        'lookahead: { cuts: 3 }',
      ].join('\n'),
    );
    const r = await runCli(['optimize', '--config', cfg, '--spec', s, '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^4 candidates, 4 folds \(anchored\), \d+ backtests; objective calmar \(min 2 closing fills\)\n/);
    const { r: res } = await expectConsistent(out, 4, 'optimize.png');
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(res.folds.map((f) => [day(f.inSample.fromMs), day(f.inSample.toMs), day(f.outOfSample.fromMs), day(f.outOfSample.toMs)])).toEqual([
      ['2026-01-01', '2026-01-11', '2026-01-11', '2026-01-16'],
      ['2026-01-01', '2026-01-16', '2026-01-16', '2026-01-21'],
      ['2026-01-01', '2026-01-21', '2026-01-21', '2026-01-26'],
      ['2026-01-01', '2026-01-26', '2026-01-26', '2026-01-31'],
    ]);
    expect(res.lookahead.peeks).toBe(false);
    expect(res.lookahead.copies).toBe(true);
    // The last fold's choice out of sample, as a plain backtest of its window with those params.
    const last = res.folds[res.folds.length - 1]!;
    const chosen = config('ema-chosen', cfg, (doc) => {
      for (const [k, v] of Object.entries(last.best.params)) doc.setIn(['strategies', 0, 'params', k], v);
    });
    const plain = await runCli(
      ['backtest', '--config', chosen, '--out', join(dir, 'plain'), '--from', last.outOfSample.from, '--to', new Date(last.outOfSample.toMs - 1).toISOString()],
      env,
    );
    expect(plain.code).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'plain', 'report.json'), 'utf8')) as { metrics: { strategyPnl: string } };
    expect(report.metrics.strategyPnl).toBe(last.outOfSampleRun.metrics.strategyPnl);
  }, 300_000);

  it('the lookahead check flags a strategy that reads the future from the data file, naming the first decision that differs', async () => {
    const cfg = config('peek', 'config/backtest.yaml', (doc) => {
      doc.set('strategyDirs', [resolve('test/fixtures/strategies')]);
      doc.set('strategies', [{ id: 'peek', name: 'peek-ahead', symbols: ['BTCUSDT_SPBL'], params: { file: 'data/sample/ticks.jsonl' } }]);
    });
    const out = join(dir, 'peek');
    const s = spec(
      'peek',
      'strategy: peek\nparams:\n  aheadMs: [30000, 60000]\nwalkForward: { folds: 1, ratio: 2 }\nmonteCarlo: { runs: 0 }\nlookahead: { cuts: 2 }\n',
    );
    const r = await runCli(['optimize', '--config', cfg, '--spec', s, '--out', out, '--to', '2026-01-05T00:10:00Z'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /\nlookahead: PEEKS AHEAD — cut at 2026-01-05T00:03:20Z, decision \d+ differs \(whole data: 2026-01-05T00:0\d:\d\d\.\d{3}Z \{"kind":/,
    );
    const res = result(out);
    expect(res.lookahead.peeks).toBe(true);
    for (const c of res.lookahead.cuts) {
      // Each cut run decided otherwise before its cut (less the margin): within the strategy's look ahead of it.
      const d = c.difference!;
      const at = Math.min(d.full?.ts ?? Infinity, d.cut?.ts ?? Infinity);
      expect(at).toBeLessThanOrEqual(c.untilMs);
      expect(at).toBeGreaterThan(c.cutMs - 60_000 - res.lookahead.marginMs);
    }
    const page = await openReport(join(out, 'optimize.html'));
    expect(page.errors).toEqual([]);
    expect(page.verdict).toBe('peeks');
    expect(page.text).toContain('The strategy peeks ahead');
  }, 240_000);

  it('on a `sextant worker` through a Redis queue: the same optimisation as on the threads here', async () => {
    const queue = `e2e-optimize-${randomUUID().slice(0, 8)}`;
    const cfg = config('queued', 'config/backtest.yaml', (doc) => {
      doc.set('strategies', [
        {
          id: 'mm-btc',
          name: 'spot-market-maker',
          symbols: ['BTCUSDT_SPBL'],
          params: { halfSpreadBps: 2, size: '0.002', maxInventory: '0.02', skewBps: 5, toleranceBps: 1 },
        },
      ]);
    });
    const s = spec(
      'queued',
      'strategy: mm-btc\nparams:\n  halfSpreadBps: [2, 5]\nwalkForward: { folds: 2, ratio: 2 }\nmonteCarlo: { runs: 200 }\nlookahead: { cuts: 1 }\n',
    );
    const args = (out: string) => ['optimize', '--config', cfg, '--spec', s, '--out', join(dir, out), '--to', '2026-01-05T00:04:00Z'];
    const worker = spawn(process.execPath, [resolve('bin/sextant.js'), 'worker', '--redis', REDIS, '--queue', queue, '--concurrency', '2'], { env });
    const exited = new Promise<number | null>((done) => worker.on('exit', (code) => done(code)));
    let log = '';
    const ready = new Promise<void>((done, fail) => {
      worker.stderr.on('data', (d) => {
        log += String(d);
        if (log.includes('"msg":"worker ready"')) done();
      });
      void exited.then((code) => fail(new Error(`the worker ended (${code}): ${log}`)));
    });
    try {
      const [here] = await Promise.all([runCli(args('here'), env), ready]);
      expect(here.code).toBe(0);
      const queued = await runCli([...args('queued'), '--queue', REDIS, '--queue-name', queue], env);
      expect(queued.stderr).toContain(`optimize: backtests queued on ${queue}`);
      expect(queued.code).toBe(0);
      expect(queued.stdout).toBe(here.stdout.replace(join(dir, 'here'), join(dir, 'queued')));
      const text = (out: string) => readFileSync(join(dir, out, 'optimize.json'), 'utf8').replaceAll(join(dir, out), '<out>');
      expect(text('queued')).toBe(text('here'));
      expect(log).toContain('"msg":"job done"');
    } finally {
      worker.kill('SIGTERM');
      await exited;
      const redis = new Redis(REDIS);
      const keys = await redis.keys(`sextant:${queue}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  }, 180_000);

  it('a spec in error is refused with its lines; params the strategy refuses are named before anything runs', async () => {
    const bad = spec('bad', 'strategy: mm-btc\nparams:\n  halfSpreadBps: []\nwalkForward: { inSample: 8m }\n');
    const r = await runCli(['optimize', '--spec', bad], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}:3:18: params.halfSpreadBps: expected a non-empty list of values, or a range {from, to, step}`);
    expect(r.stderr).toContain(`${bad}:4:14: walkForward: give inSample and outOfSample, or folds (with one of them, or alone)`);
    const refused = spec('refused', 'strategy: mm-btc\nparams:\n  size: [0.001]\nwalkForward: { folds: 2 }\n');
    const q = await runCli(['optimize', '--spec', refused], env);
    expect(q.code).toBe(1);
    expect(q.stderr).toMatch(/^mm-btc \(spot-market-maker\) refuses \{"size":0\.001\}: size: .*\(decimals as text: quote them, "0\.5"\)\n$/);
  }, 60_000);
});
