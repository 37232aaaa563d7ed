/// <reference lib="dom" />
// The drawdown kill switch tripping on a real daemon (the default config's strategies on its embedded simulator,
// a drawdown limit so small that the market's first dip from the peak trips it) reaches every surface within a
// second of the latch: the journal's latch row, a `trading-state` event in the control API's event log, a signed
// webhook delivery and a Telegram message on the local fakes; and the dashboard, in real Chromium, shows `halted`.
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeBotApi } from '../unit/ops/notify/fake-bot-api.js';
import { WebhookReceiver } from '../unit/ops/notify/webhook-receiver.js';
import type { Browser } from 'playwright-core';
import { DEFAULT_STRATEGIES, launchChromium, opsAuthOf, quickDefaultConfig } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-kill-e2e-'));
const TOKEN = '7011223344:AAkill-switch-token-canary';
const HOOK_SECRET = 'kill-hook-secret-canary-93ab';
const CHAT = '6001';
const journalPath = join(dir, 'journal.sqlite');
const saved = { token: process.env.SEXTANT_TELEGRAM_TOKEN, hook: process.env.SEXTANT_KILL_HOOK };

let api: FakeBotApi;
let receiver: WebhookReceiver;
let daemon: Daemon;
let browser: Browser;

beforeAll(async () => {
  api = new FakeBotApi(TOKEN);
  await api.listen();
  receiver = new WebhookReceiver();
  await receiver.listen();
  process.env.SEXTANT_TELEGRAM_TOKEN = TOKEN;
  process.env.SEXTANT_KILL_HOOK = HOOK_SECRET;
  const loaded = quickDefaultConfig(
    dir,
    journalPath,
    (doc) => {
      doc.setIn(['risk', 'maxDrawdownPct'], '0.0001');
      doc.setIn(['notify'], {
        webhooks: [{ name: 'ops', url: `${receiver.url}/hook`, secretEnv: 'SEXTANT_KILL_HOOK', events: ['kill-switch'] }],
        telegram: { apiRoot: api.url, chatIds: [CHAT], events: ['kill-switch'] },
      });
    },
    { tickersMs: 300, ordersMs: 600, balancesMs: 300, positionsMs: 1000 },
  );
  daemon = await startDaemon(loaded, silentLogger, systemClock, { definitions: DEFAULT_STRATEGIES });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop('test over');
  await api?.close();
  await receiver?.close();
  for (const [name, value] of [
    ['SEXTANT_TELEGRAM_TOKEN', saved.token],
    ['SEXTANT_KILL_HOOK', saved.hook],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Polls `f` every 10 ms until it gives a value; returns it with the wall time it was first seen. */
async function seen<T>(what: string, f: () => T | undefined | Promise<T | undefined>, ms = 60_000): Promise<{ value: T; atMs: number }> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await f();
    if (value !== undefined) return { value, atMs: Date.now() };
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the drawdown kill switch trips', () => {
  it('journal, event, webhook, Telegram and dashboard all say halted within a second', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // When the page shows halted, by the page's own clock (the machine's): polling the page from here would add the
    // test's own round trips to the dashboard's time.
    await page.addInitScript(() => {
      new MutationObserver(() => {
        const w = window as unknown as { haltedAtMs?: number };
        if (w.haltedAtMs === undefined && document.getElementById('trading-state')?.dataset.state === 'halted') w.haltedAtMs = Date.now();
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
    });
    await page.goto(daemon.signInUrl!);
    const db = new Database(journalPath, { readonly: true });
    try {
      const latch = await seen(
        'the drawdown latch in the journal',
        () =>
          db.prepare("SELECT name, reason, at_ms AS atMs FROM latches WHERE name LIKE 'kill-switch%'").get() as
            { name: string; reason: string; atMs: number } | undefined,
      );
      expect(latch.value.reason).toMatch(/drawdown/i);
      // From when the latch was written (first seen in the journal): its at_ms is the time of the equity reading
      // that tripped it, which the polls took earlier.
      const t0 = latch.atMs;

      // Every surface watched at once: each one's time is when it was first seen saying so.
      const [event, hook, telegram, shown] = await Promise.all([
        seen('a trading-state event', async () => {
          const events = (await (await fetch(`${daemon.opsUrl}/api/v1/events?limit=500`, { headers: opsAuthOf(daemon) })).json()) as Array<{
            kind: string;
            atMs: number;
            data: Record<string, unknown>;
          }>;
          return events.find((e) => e.kind === 'state' && e.data.state === 'halted');
        }),
        seen('a webhook delivery', () => receiver.received.find((r) => /halted/i.test(r.body))),
        seen('a Telegram message', () => api.sent.find((m) => m.chat_id === CHAT && /halted/i.test(m.text))),
        seen(
          'the dashboard showing halted',
          () => page.evaluate(() => (window as unknown as { haltedAtMs?: number }).haltedAtMs).catch(() => undefined),
          15_000,
        ),
      ]);

      // The webhook is signed with the shared secret.
      const signature = String(hook.value.headers['x-sextant-signature'] ?? '');
      expect(signature).toBe(`sha256=${createHmac('sha256', HOOK_SECRET).update(hook.value.body).digest('hex')}`);
      // Each surface within a second of the latch (the dashboard refreshes on the stream's state event).
      const delays = { event: event.atMs - t0, webhook: hook.atMs - t0, telegram: telegram.atMs - t0, dashboard: shown.value - t0 };
      for (const [surface, delay] of Object.entries(delays)) expect({ surface, within: delay <= 1000 }).toEqual({ surface, within: true });
      expect(errors).toEqual([]);
    } finally {
      db.close();
      await page.close();
    }
  }, 90_000);
});
