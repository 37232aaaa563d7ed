/// <reference lib="dom" />
// The HTML report in a real browser (Debian's chromium through playwright-core): it opens offline from the file,
// raises no page error, and every chart drew (coloured pixels on its canvases); a run that trades futures shows the
// margin rate beside equity and drawdown, funding paid and received, fees by kind and its liquidations; the run's
// period, labelled metrics, the per-strategy breakdown, the trade list and monthly returns as report.json has them.
import '../fixtures/backtest-in-jest.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { definitions, writeFuturesScenario } from '../fixtures/futures-backtest.js';
import { launchChromium } from '../fixtures/e2e.js';
import { metricText, moneyText } from '../../src/report/html-tables.js';
import type { Metrics, StrategyPnl } from '../../src/report/metrics.js';

const { loadConfig } = await import('../../src/config/load.js');
const { runBacktest } = await import('../../src/app/backtest.js');
const { silentLogger } = await import('../../src/util/logger.js');

const dir = mkdtempSync(join(tmpdir(), 'sextant-html-'));

function backtest(out: string): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/sextant.js', 'backtest', '--out', out, '--to', '2026-01-05T00:10:00Z'], { env: { PATH: process.env.PATH } });
    p.on('close', resolve);
  });
}

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

/** On a page `width` pixels wide, where the trades table's PnL column ends, and where the visible part of its scroll box ends. */
async function pnlColumnAt(file: string, width: number): Promise<{ pnlRight: number; visibleRight: number; header: string }> {
  const page = await browser.newPage({ viewport: { width, height: 1000 } });
  await page.goto(`file://${file}`);
  const at = await page.evaluate(() => {
    const th = Array.from(document.querySelectorAll('#trades th')).find((c) => c.textContent === 'PnL (USDT)')!;
    const box = th.closest('.scroll') ?? document.body;
    return {
      pnlRight: th.getBoundingClientRect().right,
      visibleRight: Math.min(box.getBoundingClientRect().right, window.innerWidth),
      header: th.textContent ?? '',
    };
  });
  await page.close();
  return at;
}

/** Opens a report, waits for its charts and reads what the page shows: drawn pixels per chart, the tables' rows. */
async function open(file: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`file://${file}`);
  await page.waitForFunction(() => (window as unknown as { __chartsReady?: boolean }).__chartsReady === true, null, { timeout: 15_000 });
  const shown = await page.evaluate(() => {
    const count = (el: Element | null) => {
      if (!el) return -1;
      let n = 0;
      for (const c of Array.from(el.querySelectorAll('canvas'))) {
        const ctx = (c as HTMLCanvasElement).getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) continue;
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < px.length; i += 4) if (px[i + 3]! > 0 && !(px[i]! > 240 && px[i + 1]! > 240 && px[i + 2]! > 240)) n++;
      }
      return n;
    };
    /** The rows of a table: each row's cells' text. */
    const rows = (id: string) => Array.from(document.querySelectorAll(`#${id} tr`)).map((tr) => Array.from(tr.children).map((c) => c.textContent ?? ''));
    return {
      prices: Array.from(document.querySelectorAll('[data-chart="price"]')).map(count),
      equity: count(document.getElementById('equity')),
      drawdown: count(document.getElementById('drawdown')),
      margin: count(document.getElementById('margin')),
      metrics: document.querySelectorAll('table tr').length,
      figures: Array.from(document.querySelectorAll('#metrics th')).map((th) => th.textContent),
      figureKeys: Array.from(document.querySelectorAll('#metrics tr[data-key]')).map((tr) => [tr.getAttribute('data-key'), tr.children[1]?.textContent ?? '']),
      strategies: Array.from(document.querySelectorAll('#strategies th')).map((th) => th.textContent),
      strategyRows: rows('strategies'),
      trades: rows('trades'),
      monthly: rows('monthly'),
      period: document.getElementById('period')?.textContent ?? null,
      legend: document.getElementById('equity-legend')?.textContent ?? null,
      venue: Array.from(document.querySelectorAll('#venue th')).map((th) => th.textContent),
      futures: Object.fromEntries(rows('futures').map(([k, v]) => [k, v])),
      liquidations: rows('liquidations'),
      liquidationsText: document.getElementById('liquidations')?.textContent ?? null,
    };
  });
  await page.close();
  return { errors, ...shown };
}

interface Report {
  metrics: Metrics;
  strategies: Array<{ id: string; pnl: StrategyPnl; trades: { trades: number; winRatePct: string; profitFactor: string }; errors: number }>;
  trades: Array<{
    strategy: string;
    symbol: string;
    side: string;
    entryMs: number;
    entryPrice: string;
    exitMs: number | null;
    exitPrice: string | null;
    size: string;
    pnl: string;
    fees: string;
    mae: string;
    mfe: string;
  }>;
  monthly: Array<{ month: string; startEquity: string; endEquity: string; pnl: string; returnPct: string }>;
}

/** The breakdown, trade list and monthly tables show report.json's figures. */
function expectSections(drawn: Awaited<ReturnType<typeof open>>, report: Report) {
  expect(drawn.strategyRows.slice(1)).toEqual(
    report.strategies.map((s) => [
      s.id,
      ...[s.pnl.pnl, s.pnl.realized, s.pnl.unrealized, s.pnl.fees, s.pnl.funding].map(moneyText),
      String(s.pnl.fills),
      String(s.trades.trades),
      s.trades.winRatePct,
      s.trades.profitFactor,
      String(s.errors),
    ]),
  );
  expect(report.trades.length).toBeGreaterThan(0);
  // Newest first, at most 500.
  const shown = report.trades.slice(-500).reverse();
  expect(drawn.trades.length).toBe(shown.length + 1);
  const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ').replace(/:00$/, '');
  drawn.trades.slice(1).forEach((r, i) => {
    const t = shown[i]!;
    // PnL and fees right after the side (seen without scrolling); money to the cent, every digit in report.json.
    expect([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[10], r[11], r[12]]).toEqual([
      t.strategy,
      t.symbol,
      t.side,
      moneyText(t.pnl),
      moneyText(t.fees),
      utc(t.entryMs),
      t.entryPrice,
      t.exitMs === null ? 'open' : utc(t.exitMs),
      t.exitPrice ?? '',
      t.size,
      moneyText(t.mae),
      moneyText(t.mfe),
    ]);
  });
  expect(drawn.monthly.slice(1)).toEqual(report.monthly.map((m) => [m.month, moneyText(m.startEquity), moneyText(m.endEquity), moneyText(m.pnl), m.returnPct]));
  expect(report.monthly.map((m) => m.month)).toEqual(['2026-01']);
}

describe('report.html', () => {
  it('draws the price, equity, drawdown and margin-rate charts offline', async () => {
    expect(await backtest(dir)).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/); // self-contained: nothing fetched
    const drawn = await open(join(dir, 'report.html'));
    expect(drawn.errors).toEqual([]);
    expect(drawn.prices).toHaveLength(2);
    // A trade's PnL is read without scrolling the table sideways on a 1400-pixel page.
    const pnl = await pnlColumnAt(join(dir, 'report.html'), 1400);
    expect(pnl.header).toBe('PnL (USDT)');
    expect(pnl.pnlRight).toBeLessThanOrEqual(pnl.visibleRight);
    // The sample trades a futures grid: its margin rate is drawn beside equity and drawdown.
    for (const n of [...drawn.prices, drawn.equity, drawn.drawdown, drawn.margin]) expect(n).toBeGreaterThan(2000);
    expect(drawn.metrics).toBeGreaterThan(10);
    // The strategy's PnL first, buy-and-hold of the starting account beside it, in words with their units; each
    // strategy's own PnL.
    expect(drawn.figures.slice(0, 4)).toEqual([
      'Strategy PnL (USDT, fees and funding included)',
      'Strategy return (% of starting equity)',
      'Buy-and-hold PnL (USDT)',
      'Buy-and-hold return (% of starting equity)',
    ]);
    expect(drawn.figures).toEqual(
      expect.arrayContaining(["Max drawdown of the strategy's equity (% of its peak)", 'Sharpe ratio', 'Sharpe and Sortino', 'Fees (USDT)']),
    );
    expect(drawn.strategies).toEqual(expect.arrayContaining(['mm-btc', 'grid-eth']));
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    expect(drawn.figureKeys).toEqual((Object.keys(report.metrics) as Array<keyof Metrics>).map((k) => [k, metricText(report.metrics, k)]));
    // The run's period: 00:00:01 (the first tick) to 00:10.
    expect(drawn.period).toBe('2026-01-05 00:00:01 → 2026-01-05 00:10 UTC, 9 min 59 s');
    expect(drawn.legend).toBe('EquityBuy-and-hold of the starting account');
    expectSections(drawn, report);
    // The table names what the simulated venue counted: weight used per pool and the 429s.
    expect(drawn.venue).toEqual(
      expect.arrayContaining(['round trip (ms)', 'requests', 'weight used futures:ip', 'weight used spot:uid', '429s simulated', 'polls skipped']),
    );
    // Half an hour from midnight: no settlement, no liquidation; the figures are there all the same.
    expect(drawn.futures).toMatchObject({ 'funding paid': '0.00000000', 'funding received': '0.00000000', liquidations: '0' });
    expect(Object.keys(drawn.futures)).toEqual(expect.arrayContaining(['fees maker', 'fees taker', 'fees liquidation', 'fees total']));
    expect(drawn.liquidationsText).toBe('None.');
  }, 60_000);

  it("shows a leveraged run's funding, fees by kind and its liquidation as report.json has them", async () => {
    const scenario = writeFuturesScenario(mkdtempSync(join(dir, 'futures-')));
    await runBacktest(loadConfig(scenario.config, {}), silentLogger, { definitions });
    const report = JSON.parse(readFileSync(join(scenario.out, 'report.json'), 'utf8')) as {
      futures: {
        funding: { paid: string; received: string; net: string; settlements: number };
        fees: Record<string, string>;
        liquidations: Array<Record<string, string>>;
      };
    };
    const f = report.futures;
    const drawn = await open(join(scenario.out, 'report.html'));
    expect(drawn.errors).toEqual([]);
    expectSections(drawn, JSON.parse(readFileSync(join(scenario.out, 'report.json'), 'utf8')) as Report);
    for (const n of [drawn.equity, drawn.drawdown, drawn.margin]) expect(n).toBeGreaterThan(2000);
    expect(drawn.futures).toMatchObject({
      'funding paid': f.funding.paid,
      'funding received': f.funding.received,
      'funding net': f.funding.net,
      'funding settlements': String(f.funding.settlements),
      'fees maker': f.fees.maker,
      'fees taker': f.fees.taker,
      'fees liquidation': f.fees.liquidation,
      'fees total': f.fees.total,
      liquidations: '1',
    });
    expect(Number(f.funding.paid)).toBeGreaterThan(0);
    expect(Number(f.fees.liquidation)).toBeGreaterThan(0);
    const l = f.liquidations[0]!;
    expect(drawn.liquidations).toEqual([
      ['time', 'symbol', 'side', 'size', 'price', 'mark', 'PnL', 'fee'],
      [l.at, l.symbol, l.side, l.size, l.price, l.mark, l.pnl, l.fee],
    ]);
  }, 60_000);
});
