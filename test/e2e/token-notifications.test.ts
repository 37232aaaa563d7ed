// The operator surface's HTTP token (configured, or generated at start) is in no notification a real daemon sends to a
// webhook or to Telegram while it trades, is commanded through the control API with that token and stops, even when an
// operator pastes it into a command's reason.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { signInUrl } from '../../src/app/http.js';
import { NOTIFY_EVENTS } from '../../src/config/schema.js';
import { AccessPolicy } from '../../src/ops/api/auth.js';
import { API_PREFIX } from '../../src/ops/api/routes.js';
import type { WebhookPayload } from '../../src/ops/notify/webhook.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeBotApi, type SentMessage } from '../unit/ops/notify/fake-bot-api.js';
import { WebhookReceiver, type Received } from '../unit/ops/notify/webhook-receiver.js';
import { DEFAULT_STRATEGIES, opsAuthOf, quickDefaultConfig, waitFor } from '../fixtures/e2e.js';
import { rawRequest } from '../fixtures/raw-http.js';

// Its '+', '/' and '=' make its URL-encoded form another string.
const CONFIGURED_TOKEN = 'e2e+notify/t0ken=canary~7c2e';
const TOKEN_ENV = 'SEXTANT_E2E_NOTIFY_HTTP_TOKEN';
// Never set: the daemon generates its token.
const UNSET_TOKEN_ENV = 'SEXTANT_E2E_NOTIFY_NO_HTTP_TOKEN';
const BOT_TOKEN = '7099887766:AAE2e-token-notify-canary';
const BOT_ENV = 'SEXTANT_E2E_NOTIFY_BOT';
const HOOK_ENV = 'SEXTANT_E2E_NOTIFY_HOOK';
const CHAT = '5002';
/** Commands given through the control API in each run, each told as a `command` notification. */
const COMMANDS = 7;

const saved = new Map([TOKEN_ENV, BOT_ENV, HOOK_ENV].map((name) => [name, process.env[name]]));

beforeAll(() => {
  process.env[TOKEN_ENV] = CONFIGURED_TOKEN;
  process.env[BOT_ENV] = BOT_TOKEN;
  process.env[HOOK_ENV] = 'e2e-token-notify-hook-secret';
  delete process.env[UNSET_TOKEN_ENV];
});

afterAll(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** What a notification must not hold: the token, URL-encoded (either hex case), the session cookie made from it, a sign-in link. */
function forbiddenForms(token: string): Array<[string, string]> {
  const encoded = encodeURIComponent(token);
  return [
    ['token', token],
    ['token URL-encoded', encoded],
    ['token URL-encoded, lower-case hex', encoded.replace(/%[0-9A-F]{2}/g, (s) => s.toLowerCase())],
    ['session cookie value', new AccessPolicy({ token, commands: true }).sessionValue],
    ['sign-in link', '/login?token='],
  ];
}

/** Every notification holding a forbidden form of `token`, with the form found. */
function leaks(notifications: readonly string[], token: string): Array<{ form: string; notification: string }> {
  const forms = forbiddenForms(token);
  return notifications.flatMap((notification) => forms.filter(([, value]) => notification.includes(value)).map(([form]) => ({ form, notification })));
}

/** Each webhook request whole (path, headers, body) and each Telegram message (text, buttons), as text. */
const hookText = (r: Received) => `${r.path}\n${JSON.stringify(r.headers)}\n${r.body}`;
const chatText = (m: SentMessage) => `${m.text}\n${JSON.stringify(m.reply_markup ?? null)}`;
const topicsOf = (receiver: WebhookReceiver) => receiver.received.map((r) => (JSON.parse(r.body) as WebhookPayload).topic);

/** Sends /status from the chat; resolves once the bot answered it. */
async function askStatus(api: FakeBotApi): Promise<void> {
  const from = api.sent.length;
  api.sendText(CHAT, '/status');
  await api.until(() => api.sent.slice(from).some((m) => /\nTrading: /.test(m.text)));
}

/**
 * Runs a daemon whose token is read from `tokenEnv` (generated when unset) with a webhook and Telegram told every
 * topic: it trades until a fill is told, answers /status in the chat, takes seven commands through the control API
 * (with the token, and with the session of its sign-in link), then stops. Returns its token.
 */
async function notifyingRun(tokenEnv: string, receiver: WebhookReceiver, api: FakeBotApi): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-token-notify-'));
  const loaded = quickDefaultConfig(dir, join(dir, 'journal.sqlite'), (doc) => {
    doc.setIn(['daemon', 'http', 'tokenEnv'], tokenEnv);
    const channel = { events: [...NOTIFY_EVENTS], maxPerMinute: 600 };
    doc.setIn(['notify'], {
      webhooks: [{ name: 'ops', url: `${receiver.url}/hook`, secretEnv: HOOK_ENV, ...channel }],
      telegram: { tokenEnv: BOT_ENV, apiRoot: api.url, chatIds: [CHAT], ...channel },
    });
  });
  const logger = createLogger({ level: 'warn', destination: { write: () => {} } });
  let daemon: Daemon | undefined = await startDaemon(loaded, logger, systemClock, { definitions: DEFAULT_STRATEGIES });
  try {
    // Generated: the one in its sign-in link; configured: the environment's (no link then).
    const token = daemon.signInUrl ? opsAuthOf(daemon).authorization.slice('Bearer '.length) : process.env[tokenEnv]!;
    const port = Number(new URL(daemon.opsUrl).port);
    await waitFor(
      'a fill told to both channels',
      () => (topicsOf(receiver).includes('fill') && api.sent.some((m) => m.text.startsWith('Fill: ')) ? true : undefined),
      15_000,
    );
    await askStatus(api);

    // The sign-in link (printed for a generated token; made the same way for a configured one) gives the session.
    const link = new URL(daemon.signInUrl ?? signInUrl(daemon.opsUrl, token));
    const login = await rawRequest(port, 'GET', `${link.pathname}${link.search}`, {});
    expect(login.status).toBe(303);
    const session = { cookie: String(login.headers['set-cookie']).split(';')[0]! };
    const bearer = { authorization: `Bearer ${token}` };
    const post = async (path: string, auth: Record<string, string>, body: Record<string, unknown>) =>
      (await rawRequest(port, 'POST', `${API_PREFIX}${path}`, auth, JSON.stringify(body))).status;
    const reason = { reason: 'token drill' };
    expect(await post('/strategies/mm-btc/pause', bearer, { cancelOrders: true, ...reason })).toBe(200);
    expect(await post('/strategies/no-such/pause', bearer, { cancelOrders: false, ...reason })).toBe(404);
    expect(await post('/strategies/mm-btc/resume', session, reason)).toBe(200);
    expect(await post('/trading/reduce', session, reason)).toBe(200);
    expect(await post('/trading/reset', bearer, reason)).toBe(200);
    // An operator who pastes the token (or the link's encoded form) into a reason: scrubbed before it is sent.
    expect(await post('/trading/halt', bearer, { reason: `pasted ${token} and ${encodeURIComponent(token)}` })).toBe(200);
    expect(await post('/trading/flatten', bearer, reason)).toBe(200);
    await waitFor(
      'every command and the kill switch told to both channels',
      () =>
        topicsOf(receiver).filter((t) => t === 'command').length >= COMMANDS &&
        api.sent.filter((m) => m.text.startsWith('Command: ')).length >= COMMANDS &&
        receiver.received.some((r) => r.body.includes('KILL SWITCH')) &&
        api.sent.some((m) => m.text.startsWith('KILL SWITCH'))
          ? true
          : undefined,
      10_000,
    );
    await askStatus(api);
    await daemon.stop('test over');
    daemon = undefined;
    return token;
  } finally {
    await daemon?.stop('test failed');
  }
}

/** The run's notifications hold no form of its token; the same check finds each form in a message sent through the same receivers. */
async function expectNoToken(token: string, receiver: WebhookReceiver, api: FakeBotApi): Promise<void> {
  // Enough arrived, of the topics the run made, for the check to mean something.
  expect(receiver.received.length).toBeGreaterThanOrEqual(10);
  expect(api.sent.length).toBeGreaterThanOrEqual(10);
  expect([...new Set(topicsOf(receiver))]).toEqual(expect.arrayContaining(['fill', 'command', 'kill-switch', 'strategy']));
  expect(leaks([...receiver.received.map(hookText), ...api.sent.map(chatText)], token)).toEqual([]);

  // The check at work: a message holding each form, sent as the notifiers send, is collected and found.
  for (const [form, value] of forbiddenForms(token)) {
    const text = `probe: ${value}`;
    await fetch(`${receiver.url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    await fetch(`${api.url}/bot${BOT_TOKEN}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: CHAT, text }),
    });
    const hook = leaks([hookText(receiver.received.at(-1)!)], token).map((f) => f.form);
    const chat = leaks([chatText(api.sent.at(-1)!)], token).map((f) => f.form);
    expect({ form, hook: hook.includes(form), chat: chat.includes(form) }).toEqual({ form, hook: true, chat: true });
  }
}

/** A webhook receiver and a fake Bot API for one test, closed after it. */
async function withReceivers(test: (receiver: WebhookReceiver, api: FakeBotApi) => Promise<void>): Promise<void> {
  const receiver = new WebhookReceiver();
  const api = new FakeBotApi(BOT_TOKEN);
  await Promise.all([receiver.listen(), api.listen()]);
  try {
    await test(receiver, api);
  } finally {
    await Promise.all([receiver.close(), api.close()]);
  }
}

describe('the HTTP token in notifications', () => {
  it('a configured token is in none', async () => {
    await withReceivers(async (receiver, api) => {
      const token = await notifyingRun(TOKEN_ENV, receiver, api);
      expect(token).toBe(CONFIGURED_TOKEN);
      await expectNoToken(token, receiver, api);
    });
  }, 30_000);

  it('a token generated at start is in none', async () => {
    await withReceivers(async (receiver, api) => {
      const token = await notifyingRun(UNSET_TOKEN_ENV, receiver, api);
      expect(token).not.toBe(CONFIGURED_TOKEN);
      expect(token.length).toBeGreaterThanOrEqual(32);
      await expectNoToken(token, receiver, api);
    });
  }, 30_000);
});
