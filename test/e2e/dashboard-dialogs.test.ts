/// <reference lib="dom" />
// The dashboard's command dialog and its event log in a real Chromium, the page served by the real ControlServer
// (signed in through its link) against the fake of the control API's contract: pause asks with buttons that say what
// they do ("Pause and cancel 3 orders", "Pause, keep orders", "Don't pause"; "Pause" alone without open orders), the
// safe choice focused and taken by Escape and Enter; the kill switch asks its reason in the same dialog (required),
// halt and flatten with their own buttons and flatten's counts; a refusal's text shown; no native dialog; repeated
// events make one log entry with ×N. Screenshots of the pause and flatten dialogs go to test-output/.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../fixtures/e2e.js';
import { T0, startFakeControlApi, type FakeControlApi } from '../unit/ops/dashboard/fake-control-api.js';

let browser: Browser;
let api: FakeControlApi | undefined;

beforeAll(async () => {
  mkdirSync('test-output', { recursive: true });
  browser = await launchChromium();
}, 30_000);

afterAll(async () => {
  await browser?.close();
});

afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** The dashboard signed in; native dialogs (none expected) recorded and dismissed, page errors recorded. */
async function open(fake: FakeControlApi) {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  const errors: string[] = [];
  const native: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
  page.on('dialog', (d) => {
    native.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(fake.signInUrl);
  await page.waitForSelector('[data-strategy="mm-btc"] button[data-action="pause"]');
  return { page, errors, native };
}

/** The dialog as shown: open, its title, its buttons' labels, the focused element's label or id. */
const dialogOf = (page: Page) =>
  page.$eval('#ask', (d) => {
    const focused = document.activeElement as HTMLElement | null;
    return {
      open: (d as HTMLDialogElement).open,
      title: d.querySelector('#ask-title')?.textContent,
      reason: !(d.querySelector('#ask-reason-field') as HTMLElement).hidden,
      buttons: Array.from(d.querySelectorAll('#ask-choices button')).map((b) => b.textContent),
      focus: focused?.id || focused?.textContent,
    };
  });

const closed = (page: Page) => page.waitForFunction(() => !(document.getElementById('ask') as HTMLDialogElement).open);
const answered = (page: Page, text: string) => page.waitForFunction((t) => document.getElementById('answer')?.textContent === t, text);
const choose = (page: Page, label: string) => page.click(`#ask-choices button:text-is("${label}")`);

describe('the dashboard asks before it acts', () => {
  it('pause: cancel its 3 orders, keep them, or not pause (the safe choice focused; Escape and Enter take it)', async () => {
    api = await startFakeControlApi();
    api.state.strategies[0]!.openOrders = 3;
    const { page, errors, native } = await open(api);
    const pause = '[data-strategy="mm-btc"] button[data-action="pause"]';
    await page.waitForFunction(() => document.querySelector('[data-strategy="mm-btc"] [data-fact="open orders"]')?.textContent === '3');

    await page.click(pause);
    expect(await dialogOf(page)).toEqual({
      open: true,
      title: 'Pause mm-btc?',
      reason: false,
      buttons: ['Pause and cancel 3 orders', 'Pause, keep orders', "Don't pause"],
      focus: "Don't pause",
    });
    expect(await page.textContent('#ask-text')).toBe('It sends no new orders until resumed. Its 3 open orders can be canceled or left resting.');
    await page.screenshot({ path: join('test-output', 'dashboard-pause-dialog.png') });
    await choose(page, 'Pause and cancel 3 orders');
    await answered(page, 'pause mm-btc: ok - done');
    await closed(page);
    expect(api.commands).toEqual([{ path: '/strategies/mm-btc/pause', body: { cancelOrders: true }, who: 'session' }]);

    await page.click(pause);
    await page.evaluate(() => void (document.getElementById('answer')!.textContent = ''));
    await choose(page, 'Pause, keep orders');
    await answered(page, 'pause mm-btc: ok - done');
    await closed(page);
    expect(api.commands.slice(1)).toEqual([{ path: '/strategies/mm-btc/pause', body: { cancelOrders: false }, who: 'session' }]);

    // Not acting, three ways: the button, Escape, Enter on the focused safe choice. Then a resume: nothing before it.
    await page.click(pause);
    await choose(page, "Don't pause");
    await closed(page);
    await page.click(pause);
    await page.keyboard.press('Escape');
    await closed(page);
    await page.click(pause);
    await page.keyboard.press('Enter');
    await closed(page);
    await page.click('[data-strategy="grid-eth"] button[data-action="resume"]');
    await answered(page, 'resume grid-eth: ok - done');
    expect(api.commands.slice(2)).toEqual([{ path: '/strategies/grid-eth/resume', body: {}, who: 'session' }]);

    // Without open orders: "Pause" or not.
    api.state.strategies[0]!.openOrders = 0;
    await page.waitForFunction(() => document.querySelector('[data-strategy="mm-btc"] [data-fact="open orders"]')?.textContent === '0', null, {
      timeout: 10_000,
    });
    await page.click(pause);
    expect(await dialogOf(page)).toMatchObject({ title: 'Pause mm-btc?', buttons: ['Pause', "Don't pause"], focus: "Don't pause" });
    await choose(page, 'Pause');
    await closed(page);
    await answered(page, 'pause mm-btc: ok - done');
    expect(api.commands.slice(3)).toEqual([{ path: '/strategies/mm-btc/pause', body: { cancelOrders: false }, who: 'session' }]);
    expect(native).toEqual([]);
    await page.close();
    expect(errors).toEqual([]);
  }, 60_000);

  it('kill switch: a reason typed in the dialog (required), buttons that say what they do, flatten with its counts; refusals shown', async () => {
    api = await startFakeControlApi();
    const { page, errors, native } = await open(api);
    await page.waitForFunction(
      () => document.querySelectorAll('#positions tbody tr').length === 1 && document.querySelectorAll('#orders tbody tr[data-client-oid]').length === 2,
    );

    // Halt: the reason field focused; acting without a reason says so and keeps asking.
    await page.click('button[data-command="halt"]');
    expect(await dialogOf(page)).toEqual({ open: true, title: 'Halt trading?', reason: true, buttons: ['Halt trading', "Don't halt"], focus: 'ask-reason' });
    await choose(page, 'Halt trading');
    expect(await page.textContent('#ask-problem')).toBe('A reason is required: it is journaled with the command.');
    expect((await dialogOf(page)).open).toBe(true);
    await page.keyboard.type('  testing the switch ');
    // Enter in the reason field acts on nothing.
    await page.keyboard.press('Enter');
    expect((await dialogOf(page)).open).toBe(true);
    await choose(page, 'Halt trading');
    await answered(page, 'halt: ok - done');
    expect(api.commands).toEqual([{ path: '/trading/halt', body: { reason: 'testing the switch' }, who: 'session' }]);

    // Flatten: its counts as last read; not flattened by the button, nor by Escape. The field is empty each time.
    await page.click('button[data-command="flatten"]');
    expect(await dialogOf(page)).toMatchObject({ title: 'Flatten?', reason: true, buttons: ['Flatten: cancel 2 orders, close 1 position', "Don't flatten"] });
    await page.screenshot({ path: join('test-output', 'dashboard-flatten-dialog.png') });
    expect(await page.inputValue('#ask-reason')).toBe('');
    await page.fill('#ask-reason', 'risk');
    await choose(page, "Don't flatten");
    await closed(page);
    await page.click('button[data-command="flatten"]');
    expect(await page.inputValue('#ask-reason')).toBe('');
    await page.fill('#ask-reason', 'risk');
    await page.keyboard.press('Escape');
    await closed(page);

    // Reduce refused by the API: its text shown. Reset.
    api.answerNext(409, { error: 'already reducing' });
    await page.click('button[data-command="reduce"]');
    expect(await dialogOf(page)).toMatchObject({ title: 'Reduce?', buttons: ['Reduce only', "Don't reduce"] });
    await page.fill('#ask-reason', 'slow down');
    await choose(page, 'Reduce only');
    await page.waitForFunction(
      () => document.getElementById('answer')?.className === 'error' && document.getElementById('answer')?.textContent === 'reduce: refused - already reducing',
    );
    await page.click('button[data-command="reset"]');
    expect(await dialogOf(page)).toMatchObject({ title: 'Reset the kill switch?', buttons: ['Reset and trade', "Don't reset"] });
    await page.fill('#ask-reason', 'all clear');
    await choose(page, 'Reset and trade');
    await answered(page, 'reset: ok - done');
    expect(api.commands.slice(1)).toEqual([
      { path: '/trading/reduce', body: { reason: 'slow down' }, who: 'session' },
      { path: '/trading/reset', body: { reason: 'all clear' }, who: 'session' },
    ]);
    expect(native).toEqual([]);
    await page.close();
    // The 409 is the API's answer to a command: the browser logs the failed request, nothing else.
    expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
  }, 60_000);
});

describe('the event log folds repeats', () => {
  it('identical events: one entry with ×N and the latest time; amounts and ids set aside; another event starts a new entry', async () => {
    api = await startFakeControlApi();
    const { page, errors } = await open(api);
    await page.waitForFunction(() => document.querySelectorAll('#events li').length === 2 && document.getElementById('stream')?.dataset.stream === 'live');
    const denied = (i: number, detail = 'kill-switch:drawdown: drawdown 12 % > 10 %') => ({
      kind: 'order' as const,
      atMs: T0 + 10_000 + i * 1000,
      text: `mm-btc BTCUSDT_SPBL: denied (halted): ${detail}`,
      data: { type: 'denied', strategyId: 'mm-btc', symbol: 'BTCUSDT_SPBL', reason: 'halted' },
    });
    for (let i = 0; i < 12; i++) api.push(denied(i));
    await page.waitForFunction(() => document.querySelector('#events li')?.getAttribute('data-count') === '12');
    const entries = () =>
      page.$$eval('#events li', (lis) =>
        lis.map((li) => [
          li.querySelector('time')?.textContent,
          li.querySelector('.text')?.textContent,
          li.querySelector('.count')?.textContent ?? null,
          li.getAttribute('title'),
        ]),
      );
    expect(await entries()).toEqual([
      ['12:00:21', 'mm-btc BTCUSDT_SPBL: denied (halted): kill-switch:drawdown: drawdown 12 % > 10 %', '×12', '12 alike, 12:00:10 to 12:00:21'],
      ['12:00:02', 'trading halted: <script>window.__pwned=2</script>', null, null],
      ['12:00:01', 'order c1 open', null, null],
    ]);
    // Another event on top; the same denial after it is an entry of its own. Numbers that differ still fold.
    api.push({ kind: 'command', atMs: T0 + 30_000, text: 'reset by dashboard/session: done', data: {} });
    api.push(denied(21));
    api.push(denied(22, 'notional 5000.5 above 1000'));
    api.push(denied(23, 'notional 6100 above 1000'));
    await page.waitForFunction(
      () => document.querySelectorAll('#events li').length === 6 && document.querySelector('#events li')?.getAttribute('data-count') === '2',
    );
    expect((await entries()).slice(0, 4)).toEqual([
      ['12:00:33', 'mm-btc BTCUSDT_SPBL: denied (halted): notional 6100 above 1000', '×2', '2 alike, 12:00:32 to 12:00:33'],
      ['12:00:31', 'mm-btc BTCUSDT_SPBL: denied (halted): kill-switch:drawdown: drawdown 12 % > 10 %', null, null],
      ['12:00:30', 'reset by dashboard/session: done', null, null],
      ['12:00:21', 'mm-btc BTCUSDT_SPBL: denied (halted): kill-switch:drawdown: drawdown 12 % > 10 %', '×12', '12 alike, 12:00:10 to 12:00:21'],
    ]);
    await page.close();
    expect(errors).toEqual([]);
  }, 30_000);
});
