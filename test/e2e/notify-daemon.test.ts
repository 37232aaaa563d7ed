// Notifications and chat commands on a real daemon in process, trading the default config's strategies against its
// embedded simulator: a signed webhook receives real fills; `/pause mm-btc` from an allowed Telegram chat (a local
// fake Bot API), once confirmed, pauses the strategy through the daemon's Control, journaled with {via: telegram, who:
// chat id}, and the pause is told to the chat; `/resume` undoes it; a chat not allowed changes nothing; `/forceexit`
// asks first and does nothing unconfirmed; `/halt` and its confirmation button halt the daemon.
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Database from '../../src/journal/sqlite-driver.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import type { WebhookPayload } from '../../src/ops/notify/webhook.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { FakeBotApi } from '../unit/ops/notify/fake-bot-api.js';
import { WebhookReceiver } from '../unit/ops/notify/webhook-receiver.js';
import { DEFAULT_STRATEGIES, quickDefaultConfig } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-notify-e2e-'));
const TOKEN = '7099887766:AAE2e-notify-token-canary';
const HOOK_SECRET = 'e2e-hook-secret-canary-5d1f';
const CHAT = '5001';

let api: FakeBotApi;
let receiver: WebhookReceiver;
let daemon: Daemon;
let logText = '';
const journalPath = join(dir, 'journal.sqlite');
const savedEnv = { token: process.env.SEXTANT_TELEGRAM_TOKEN, hook: process.env.SEXTANT_E2E_HOOK };

beforeAll(async () => {
  api = new FakeBotApi(TOKEN);
  await api.listen();
  receiver = new WebhookReceiver();
  await receiver.listen();
  // The daemon reads the notifiers' secrets from its environment, as in production.
  process.env.SEXTANT_TELEGRAM_TOKEN = TOKEN;
  process.env.SEXTANT_E2E_HOOK = HOOK_SECRET;
  const loaded = quickDefaultConfig(dir, journalPath, (doc) => {
    doc.setIn(['notify'], {
      webhooks: [{ name: 'ops', url: `${receiver.url}/hook`, secretEnv: 'SEXTANT_E2E_HOOK', events: ['fill'], maxPerMinute: 600 }],
      telegram: { apiRoot: api.url, chatIds: [CHAT], events: ['strategy', 'kill-switch'] },
    });
  });
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void (logText += s) } });
  daemon = await startDaemon(loaded, logger, systemClock, { definitions: DEFAULT_STRATEGIES });
});

afterAll(async () => {
  await daemon?.stop('test over');
  await api?.close();
  await receiver?.close();
  for (const [name, value] of [
    ['SEXTANT_TELEGRAM_TOKEN', savedEnv.token],
    ['SEXTANT_E2E_HOOK', savedEnv.hook],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** Sends `text` from `chatId` and resolves with the bot's next message to that chat whose text matches `re`. */
async function ask(chatId: string, text: string, re: RegExp): Promise<string> {
  const before = api.sent.length;
  api.sendText(chatId, text);
  await api.until(() => api.sent.slice(before).some((m) => m.chat_id === chatId && re.test(m.text)));
  return api.sent.slice(before).find((m) => m.chat_id === chatId && re.test(m.text))!.text;
}

describe('notifications on a running daemon', () => {
  it('posts real fills to the webhook, signed', async () => {
    const [r] = await receiver.count(1);
    expect(r!.headers['x-sextant-signature']).toBe(`sha256=${createHmac('sha256', HOOK_SECRET).update(r!.body).digest('hex')}`);
    const payload = JSON.parse(r!.body) as WebhookPayload;
    expect(payload).toMatchObject({ channel: 'ops', topic: 'fill' });
    expect(payload.event!.kind).toBe('fill');
    expect(['mm-btc', 'grid-eth']).toContain(payload.strategyId);
    expect(payload.text).toMatch(/^Fill: /);
  }, 40_000);

  it('/pause from the allowed chat, once confirmed, pauses the strategy, journaled as the chat; /resume undoes it', async () => {
    // A chat not allowed first: handled in order, it changes nothing.
    api.sendText('777', '/pause mm-btc');
    const asked = await ask(CHAT, '/pause mm-btc volatile', /mm-btc/);
    expect(asked).toMatch(/^Pause mm-btc \(no new intents; its \d+ open orders? stays?\)\?\nReason: volatile\n/);
    expect(daemon.control.strategies().find((s) => s.id === 'mm-btc')!.state).toBe('running');
    const reply = await ask(CHAT, `/confirm ${/\/confirm (\d{6})/.exec(asked)![1]!}`, /mm-btc/);
    expect(reply).toBe('mm-btc paused: no new intents');
    expect(daemon.control.strategies().find((s) => s.id === 'mm-btc')!.state).toBe('paused');
    // The pause is also told to the chat, as a strategy event.
    await api.until(() => api.sent.some((m) => m.chat_id === CHAT && /^Strategy: mm-btc paused/.test(m.text)));

    const db = new Database(journalPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT via, who, command, args, reason, ok, detail FROM commands ORDER BY id').all();
      expect(rows).toEqual([
        {
          via: 'telegram',
          who: CHAT,
          command: 'pause',
          args: JSON.stringify({ id: 'mm-btc', cancelOrders: false }),
          reason: 'volatile',
          ok: 1,
          detail: 'mm-btc paused: no new intents',
        },
      ]);
    } finally {
      db.close();
    }
    expect(api.sent.filter((m) => m.chat_id === '777')).toHaveLength(0);

    expect(await ask(CHAT, '/resume mm-btc', /mm-btc/)).toBe('mm-btc resumed');
    expect(daemon.control.strategies().find((s) => s.id === 'mm-btc')!.state).toBe('running');
    expect(logText).toContain('not in notify.telegram.chatIds');
    expect(logText).not.toContain(TOKEN);
    expect(logText).not.toContain(HOOK_SECRET);
  }, 40_000);

  it('/forceexit asks for a confirmation and does nothing without it; /halt then its button halts the daemon', async () => {
    const asked = await ask(CHAT, '/forceexit grid-eth cmt_ethusdt', /^Force exit/);
    expect(asked).toMatch(
      /^Force exit grid-eth on cmt_ethusdt: pause grid-eth \(it stays paused until \/resume grid-eth\), cancel its \d+ open orders? on cmt_ethusdt and close its position there at market/,
    );
    const exitCode = /\/confirm (\d{6})/.exec(asked)![1]!;
    const exitButton = api.sent.find((m) => m.chat_id === CHAT && m.text === asked)!.reply_markup!.inline_keyboard[0]![0]!;
    expect(exitButton).toEqual({ text: 'Confirm force exit grid-eth', callback_data: `confirm:${exitCode}` });
    expect(daemon.control.strategies().find((s) => s.id === 'grid-eth')!.state).toBe('running');

    // The halt's question replaces the force exit's: its code no longer does anything.
    const halt = await ask(CHAT, '/halt e2e drill', /^Halt trading/);
    expect(halt).toContain('(This replaces the /forceexit grid-eth cmt_ethusdt waiting for its confirmation.)');
    const haltCode = /\/confirm (\d{6})/.exec(halt)![1]!;
    if (haltCode !== exitCode) expect(await ask(CHAT, `/confirm ${exitCode}`, /confirm/)).toBe('nothing to confirm with that code');
    expect(daemon.control.status().tradingState).toBe('active');

    const before = api.sent.length;
    const pressed = api.pressButton(CHAT, `confirm:${haltCode}`);
    await api.until(() => api.answered.includes(pressed) && api.sent.slice(before).some((m) => m.chat_id === CHAT && /^halted: /.test(m.text)));
    expect(daemon.control.status().tradingState).toBe('halted');
    expect(daemon.control.status().latches).toEqual([expect.objectContaining({ name: 'kill-switch:operator', reason: 'e2e drill' })]);
    // The kill switch is told to the chat, as any halt is.
    await api.until(() => api.sent.slice(before).some((m) => m.chat_id === CHAT && /KILL SWITCH/.test(m.text)));
    expect(daemon.control.strategies().find((s) => s.id === 'grid-eth')!.state).toBe('running');

    const db = new Database(journalPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT via, who, command, reason, ok FROM commands ORDER BY id').all() as Array<{ command: string }>;
      // Nothing for the force exit never confirmed; the halt as the chat.
      expect(rows.map((r) => r.command)).toEqual(['pause', 'resume', 'halt']);
      expect(rows[2]).toEqual({ via: 'telegram', who: CHAT, command: 'halt', reason: 'e2e drill', ok: 1 });
    } finally {
      db.close();
    }
  }, 40_000);
});
