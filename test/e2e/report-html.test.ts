/// <reference lib="dom" />
// The HTML report in a real browser (Debian's chromium through playwright-core): it opens offline from the file,
// raises no page error, and every chart drew (coloured pixels on its canvases).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { chromium } from 'playwright-core';
import { findChromium } from '../../scripts/test-deps.mjs';

const dir = mkdtempSync(join(tmpdir(), 'sextant-html-'));

function backtest(out: string): Promise<number | null> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/sextant.js', 'backtest', '--out', out, '--to', '2026-01-05T00:10:00Z'], { env: { PATH: process.env.PATH } });
    p.on('close', resolve);
  });
}

describe('report.html', () => {
  it('draws the price, equity and drawdown charts offline', async () => {
    expect(await backtest(dir)).toBe(0);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/); // self-contained: nothing fetched
    // `npm test` installs Debian's chromium first when none is found (scripts/test-deps.mjs).
    const executablePath = findChromium();
    if (!executablePath) throw new Error('no Chromium: run the tests with `npm test` (it installs one), or set SEXTANT_CHROMIUM');
    const browser = await chromium.launch({
      executablePath,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`file://${join(dir, 'report.html')}`);
      await page.waitForFunction(() => (window as unknown as { __chartsReady?: boolean }).__chartsReady === true, null, { timeout: 15_000 });
      const drawn = await page.evaluate(() => {
        const count = (el: Element) => {
          let n = 0;
          for (const c of Array.from(el.querySelectorAll('canvas'))) {
            const ctx = (c as HTMLCanvasElement).getContext('2d');
            if (!ctx || c.width === 0 || c.height === 0) continue;
            const px = ctx.getImageData(0, 0, c.width, c.height).data;
            for (let i = 0; i < px.length; i += 4) if (px[i + 3]! > 0 && !(px[i]! > 240 && px[i + 1]! > 240 && px[i + 2]! > 240)) n++;
          }
          return n;
        };
        return {
          prices: Array.from(document.querySelectorAll('[data-chart="price"]')).map(count),
          equity: count(document.getElementById('equity')!),
          drawdown: count(document.getElementById('drawdown')!),
          metrics: document.querySelectorAll('table tr').length,
          figures: Array.from(document.querySelectorAll('#metrics th')).map((th) => th.textContent),
          strategies: Array.from(document.querySelectorAll('#strategies th')).map((th) => th.textContent),
          venue: Array.from(document.querySelectorAll('#venue th')).map((th) => th.textContent),
        };
      });
      expect(errors).toEqual([]);
      expect(drawn.prices).toHaveLength(2);
      for (const n of [...drawn.prices, drawn.equity, drawn.drawdown]) expect(n).toBeGreaterThan(2000);
      expect(drawn.metrics).toBeGreaterThan(10);
      // The strategy's PnL first, buy-and-hold of the starting account beside it; each strategy's own PnL.
      expect(drawn.figures.slice(0, 4)).toEqual(['strategyPnl', 'strategyReturnPct', 'buyAndHoldPnl', 'buyAndHoldReturnPct']);
      expect(drawn.strategies).toEqual(expect.arrayContaining(['mm-btc', 'grid-eth']));
      // The table names what the simulated venue counted: weight used per pool and the 429s.
      expect(drawn.venue).toEqual(expect.arrayContaining(['round trip (ms)', 'requests', 'weight used futures:ip', 'weight used spot:uid', '429s simulated', 'polls skipped']));
    } finally {
      await browser.close();
    }
  }, 60_000);
});
