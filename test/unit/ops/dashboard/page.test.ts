/// <reference lib="dom" />
// The dashboard page in a real Chromium against a fake of the control API's contract: it shows the status (trading
// state coloured, the latch's reason), strategy cards, orders, fills newest first, balances, positions with their
// liquidation price, budget gauges, poll ages and the event log, with no console error; strategy and venue text
// shown as text, never run; stream events on top of the log and equity drawn. Served by the real ControlServer: a page
// not signed in asks for the token once and goes to the sign-in link with it; signed in, its reads, commands and
// stream go with the session cookie, which the page cannot read. The command dialogs and the log's folding:
// test/e2e/dashboard-dialogs.test.ts.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Dialog, Page } from 'playwright-core';
import { FAKE_TOKEN, T0, startFakeControlApi, type FakeControlApi } from './fake-control-api.js';
import { launchChromium } from '../../../fixtures/e2e.js';

let browser: Browser;
let api: FakeControlApi | undefined;

beforeAll(async () => {
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** Opens the dashboard; `answers` answers each native dialog in turn (a string: the prompt's text; true/false: accept or dismiss). */
async function open(url: string, answers: Array<string | boolean> = []) {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  const errors: string[] = [];
  const asked: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('dialog', (d: Dialog) => {
    asked.push(`${d.type()}: ${d.message()}`);
    const a = answers.shift();
    void (a === undefined || a === false ? d.dismiss() : d.accept(typeof a === 'string' ? a : undefined));
  });
  await page.goto(url);
  return { page, errors, asked, answers };
}

const text = (page: Page, selector: string) => page.$eval(selector, (el) => el.textContent ?? '');
const rows = (page: Page, id: string) => page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent ?? '')));

describe('the dashboard page', () => {
  it('shows the status, strategies, orders, fills, balances, positions, gauges and events; untrusted text stays text', async () => {
    api = await startFakeControlApi();
    const { page, errors, asked } = await open(api.signInUrl);
    await page.waitForSelector('#strategies [data-strategy="grid-eth"]');
    await page.waitForFunction(() => document.querySelectorAll('#events li').length === 2 && document.getElementById('stream')?.dataset.stream === 'live');
    expect(await text(page, '#mode')).toBe('live');
    expect(await text(page, '#venue')).toBe('embedded simulator http://127.0.0.1:40000');
    expect(await text(page, '#uptime')).toBe('1h 03m');
    expect(await page.$eval('#trading-state', (el) => [el.textContent, (el as HTMLElement).dataset.state, getComputedStyle(el).color])).toEqual([
      'halted',
      'halted',
      'rgb(242, 54, 69)',
    ]);
    expect(await text(page, '#latches')).toBe('kill-switch: drawdown 12 % > 10 % (12:00:00)');
    // Strategy cards: state, PnL, errors, positions; hostile names and errors shown as they are, nothing run.
    const eth = page.locator('[data-strategy="grid-eth"]');
    expect(await eth.locator('.name').textContent()).toBe('<img src=x onerror="window.__pwned=1">');
    expect(await eth.locator('.error').textContent()).toBe('last error: <b>boom</b> & "quotes"');
    expect(await eth.locator('[data-fact="position"]').textContent()).toBe('cmt_ethusdt long 0.05 @ 3000.5 uPnL -');
    expect(await eth.locator('button').textContent()).toBe('Resume');
    const btc = page.locator('article[data-strategy="mm-btc"]');
    expect(await btc.locator('.badge').textContent()).toBe('running');
    expect(await btc.locator('[data-fact="PnL"]').textContent()).toBe('12.34000000 (fees 0.51, 7 fills)');
    expect(await btc.locator('[data-fact="open orders"]').textContent()).toBe('2');
    expect(
      await page.evaluate(() => [(window as unknown as { __pwned?: number }).__pwned, document.querySelectorAll('main img, main b, main script').length]),
    ).toEqual([undefined, 0]);
    expect(await rows(page, 'orders')).toEqual([
      ['mm-btc', 'BTCUSDT_SPBL', 'buy', 'limit', '65431.10', '0.002', '0', 'open', '59s'],
      ['mm-btc', 'BTCUSDT_SPBL', 'sell', 'limit', '65432.10', '0.002', '0', 'open', '58s'],
    ]);
    expect(await rows(page, 'fills')).toEqual([
      ['12:00:02', '-', '-', '65010.2', '0.001', '0'],
      ['12:00:01', 'mm-btc', 'BTCUSDT_SPBL', '65000.1', '0.002', '0.01'],
    ]);
    expect(await rows(page, 'balances')).toEqual([['spot', 'USDT', '10000.00000001', '-']]);
    expect(await rows(page, 'positions')).toEqual([['cmt_ethusdt', 'long', '0.05', '3000.5', '3001', '0.025', '1234.56']]);
    expect(await rows(page, 'polls')).toEqual([
      ['tickers', '0s'],
      ['positions', 'never yet'],
    ]);
    expect(
      await page.$$eval('#budget .gauge', (gs) =>
        gs.map((g) => [
          (g as HTMLElement).dataset.pool,
          g.querySelector('.figures')?.textContent,
          (g.querySelector('.fill') as HTMLElement | null)?.style.width ?? null,
        ]),
      ),
    ).toEqual([
      ['futures:ip', '900 / 0', '100%'],
      ['spot:uid', '100 / 3', '100%'],
      ['futures:orders', 'unlimited / 0', null],
    ]);
    // The log: newest first, the stream's events on top; an equity event draws on.
    expect(await page.$$eval('#events li', (lis) => lis.map((li) => li.textContent))).toEqual([
      '12:00:02statetrading halted: <script>window.__pwned=2</script>',
      '12:00:01orderorder c1 open',
    ]);
    expect(api.push({ kind: 'fill', atMs: T0 + 90_000, text: 'fill <i>f9</i>', data: {} })).toBe(1);
    api.push({ kind: 'equity', atMs: T0 + 100_000, text: 'equity spot 9990', data: { bySurface: { spot: '9990', futures: '250.5' } } });
    await page.waitForFunction(() => document.querySelectorAll('#events li').length === 4);
    expect(await page.$$eval('#events li', (lis) => lis.slice(0, 2).map((li) => (li as HTMLElement).dataset.kind + ' ' + li.lastChild?.textContent))).toEqual([
      'equity equity spot 9990',
      'fill fill <i>f9</i>',
    ]);
    const drawn = await page.evaluate(() =>
      ['equity', 'drawdown'].map((id) => {
        let n = 0;
        for (const c of Array.from(document.querySelectorAll<HTMLCanvasElement>(`#${id} canvas`))) {
          const ctx = c.getContext('2d');
          if (!ctx || c.width === 0 || c.height === 0) continue;
          const px = ctx.getImageData(0, 0, c.width, c.height).data;
          for (let i = 0; i < px.length; i += 4) if (px[i + 3]! > 0 && !(px[i]! > 240 && px[i + 1]! > 240 && px[i + 2]! > 240)) n++;
        }
        return n;
      }),
    );
    for (const n of drawn) expect(n).toBeGreaterThan(500);
    expect(await text(page, '#chart-legend')).toBe('spotfutures');
    await page.close();
    expect(errors).toEqual([]);
    expect(asked).toEqual([]);
  }, 30_000);

  it('not signed in: asks for the token once and signs in through the link; then reads, commands and the stream go with the cookie', async () => {
    api = await startFakeControlApi();
    // Straight at the page: every read refused (401), one question for all of them.
    const { page, errors, asked } = await open(api.url, [`  ${FAKE_TOKEN} `]);
    await page.waitForSelector('[data-strategy="mm-btc"]');
    await page.waitForFunction(() => document.getElementById('stream')?.dataset.stream === 'live');
    expect(asked).toEqual(["prompt: Not signed in. Open the link the daemon printed at start (or run: sextant dashboard), or paste the daemon's token here:"]);
    expect(new URL(page.url()).pathname).toBe('/');
    // The session is an HttpOnly cookie: nothing the page's script can read or keep.
    expect(await page.evaluate(() => [document.cookie, sessionStorage.length, localStorage.length])).toEqual(['', 0, 0]);
    await page.waitForFunction(() => document.querySelectorAll('#events li').length === 2);
    api.push({ kind: 'command', atMs: T0 + 5000, text: 'halt by cookie', data: {} });
    await page.waitForFunction(() => document.querySelector('#events li')?.textContent?.includes('halt by cookie') === true);
    await page.click('button[data-command="halt"]');
    await page.fill('#ask-reason', 'why not');
    await page.click('#ask button[data-choice="halt"]');
    await page.waitForFunction(() => document.getElementById('answer')?.textContent === 'halt: ok - done');
    expect(api.commands).toEqual([{ path: '/trading/halt', body: { reason: 'why not' }, who: 'session' }]);
    expect(api.readsBy.length).toBeGreaterThan(6);
    expect(new Set(api.readsBy)).toEqual(new Set(['session']));
    expect(asked).toHaveLength(1);
    await page.close();
    // The reads refused before the sign-in: the browser logs each failed request, nothing else.
    expect(errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  }, 30_000);

  it('a sign-in link with a wrong token signs nothing in', async () => {
    api = await startFakeControlApi();
    const { page } = await open(`${api.url}/login?token=not-the-token-at-all`);
    expect(await page.textContent('body')).toContain("does not hold the daemon's token");
    expect(await page.evaluate(async () => (await fetch('/api/v1/status')).status)).toBe(401);
    await page.close();
  }, 30_000);
});
