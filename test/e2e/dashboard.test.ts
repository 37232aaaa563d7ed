/// <reference lib="dom" />
// The operator's dashboard in a real Chromium (Debian's, through playwright-core) on the daemon in process, trading
// the default config's strategies against its embedded simulator: the page shows the trading state and the strategy
// cards, and its open-orders table fills as the strategies quote; Pause on one strategy (its dialog's "Pause and
// cancel N orders") makes it `paused` in the control API and no order of it reaches the journal while paused, though the
// market keeps being read; Resume makes it quote again. No console error throughout; a screenshot of the page at
// 1366×900 goes to test-output/dashboard.png.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import type { Browser } from 'playwright-core';
import type { Document } from 'yaml';
import { DEFAULT_STRATEGIES, launchChromium, opsAuthOf, quickDefaultConfig, waitFor } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-dashboard-'));
const OUT = 'test-output';

let browser: Browser;
let daemon: Daemon | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await daemon?.stop('test over');
  await browser?.close();
});

/** The default config on a fresh journal, an ops port of the system's choosing, quick polls and a large budget. */
async function start(): Promise<{ daemon: Daemon; journalPath: string }> {
  const journalPath = join(dir, 'journal.sqlite');
  // An unanswered batch item (one the venue left out of its answer) is concluded within seconds, not the default
  // bound of a minute or more: the paused strategy's orders are all gone well within the test's wait, whatever the load.
  const quickTracking = (doc: Document) => {
    doc.setIn(['execution'], { graceMs: 1000, lostAfterChecks: 2, notPlacedAfterChecks: 2 });
    doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
  };
  const loaded = quickDefaultConfig(dir, journalPath, quickTracking, { tickersMs: 300, ordersMs: 600, balancesMs: 500, positionsMs: 1000 });
  return { daemon: await startDaemon(loaded, silentLogger, systemClock, { definitions: DEFAULT_STRATEGIES }), journalPath };
}

interface StrategyRow {
  id: string;
  state: string;
  openOrders: number;
}

describe('the dashboard on the daemon', () => {
  it('shows state and strategies, fills the open orders, pauses a strategy (no orders of it while paused) and resumes it', async () => {
    const started = await start();
    daemon = started.daemon;
    const base = daemon.opsUrl;
    const auth = { headers: opsAuthOf(daemon) };
    const api = async <T>(path: string): Promise<T> => (await (await fetch(`${base}/api/v1${path}`, auth)).json()) as T;
    const db = new Database(started.journalPath, { readonly: true });
    const ordersOf = (strategy: string) => (db.prepare('SELECT COUNT(*) AS n FROM orders WHERE strategy_id = ?').get(strategy) as { n: number }).n;
    /** Spot ticker reads answered so far: the market being read (the strategies get updates from them). */
    const tickerReads = async () => {
      const text = await (await fetch(`${base}/metrics`, auth)).text();
      return [...text.matchAll(/sextant_exchange_requests_total\{endpoint="S1[13]",outcome="ok"\} (\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
    };

    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('dialog', (d) => void d.accept());
    try {
      // The link the daemon prints at start signs the page in (its cookie), then shows the dashboard.
      await page.goto(daemon.signInUrl!);
      expect(new URL(page.url()).pathname).toBe('/');
      await page.waitForSelector('#strategies article[data-strategy="mm-btc"]', { timeout: 20_000 });
      await page.waitForSelector('#strategies article[data-strategy="grid-eth"]');
      const state = await page.waitForFunction(() => {
        const el = document.getElementById('trading-state');
        return el && ['active', 'reducing', 'halted'].includes(el.dataset.state ?? '') ? el.dataset.state : undefined;
      });
      expect(await state.jsonValue()).toBe('active');
      expect(await page.$eval('#mode', (el) => el.textContent)).toBe('live');
      // The open-orders table fills as the strategies quote, mm-btc among them.
      await page.waitForFunction(
        () => Array.from(document.querySelectorAll('#orders tbody tr[data-client-oid]')).some((tr) => tr.children[0]?.textContent === 'mm-btc'),
        null,
        { timeout: 30_000 },
      );
      await page.waitForFunction(() => document.getElementById('stream')?.dataset.stream === 'live');

      // Pause mm-btc from its card: the dialog's "Pause and cancel N orders".
      await page.click('article[data-strategy="mm-btc"] button[data-action="pause"]');
      await page.click('#ask-choices button[data-choice="cancel"]');
      await page.waitForFunction(() => /^pause mm-btc: ok/.test(document.getElementById('answer')?.textContent ?? ''), null, { timeout: 15_000 });
      const strategies = await api<StrategyRow[]>('/strategies');
      expect(strategies.find((s) => s.id === 'mm-btc')?.state).toBe('paused');
      expect(strategies.find((s) => s.id === 'grid-eth')?.state).toBe('running');
      await page.waitForSelector('article[data-strategy="mm-btc"][data-state="paused"] button[data-action="resume"]');
      // Its orders canceled; then, while the market is read on, no new order of it reaches the journal. A batch item
      // the venue left unanswered stays open until reconciliation concludes it (grace 10 s, then 3 lookups): the wait
      // covers that bound.
      await waitFor(
        'mm-btc without open orders',
        async () => ((await api<unknown[]>('/orders?scope=open&strategy=mm-btc')).length === 0 ? true : undefined),
        45_000,
      );
      const whilePaused = ordersOf('mm-btc');
      const readsAtPause = await tickerReads();
      await waitFor('more ticker reads', async () => ((await tickerReads()) >= readsAtPause + 10 ? true : undefined), 15_000);
      expect(ordersOf('mm-btc')).toBe(whilePaused);
      await page.waitForFunction(() => !Array.from(document.querySelectorAll('#orders tbody tr')).some((tr) => tr.children[0]?.textContent === 'mm-btc'));

      // Resume: running again, and it quotes again.
      await page.click('article[data-strategy="mm-btc"] button[data-action="resume"]');
      await page.waitForFunction(() => /^resume mm-btc: ok/.test(document.getElementById('answer')?.textContent ?? ''), null, { timeout: 15_000 });
      expect((await api<StrategyRow[]>('/strategies')).find((s) => s.id === 'mm-btc')?.state).toBe('running');
      await waitFor('a new mm-btc order', () => (ordersOf('mm-btc') > whilePaused ? true : undefined), 20_000);
      await page.waitForFunction(
        () => Array.from(document.querySelectorAll('#orders tbody tr[data-client-oid]')).some((tr) => tr.children[0]?.textContent === 'mm-btc'),
        null,
        { timeout: 20_000 },
      );
      // The operator's commands in the live log.
      await page.waitForFunction(() => document.querySelectorAll('#events li[data-kind="strategy"], #events li[data-kind="command"]').length >= 2);

      mkdirSync(OUT, { recursive: true });
      await page.screenshot({ path: join(OUT, 'dashboard.png') });
    } finally {
      db.close();
      await page.close();
    }
    expect(errors).toEqual([]);
  }, 120_000);
});
