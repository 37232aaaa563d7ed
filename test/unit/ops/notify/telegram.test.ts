// The Telegram channel and chat commands against a local fake Bot API over HTTP: notices reach every allowed chat,
// commands from allowed chats act through the Control as {via: telegram, who: chat id}, /halt and /pause wait for their
// confirmation (typed or pressed), a flood of commands is answered once, other chats are ignored and logged once an
// hour, the token is in no log line.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../../../src/config/load.js';
import { startNotifiers, type Notifiers } from '../../../../src/ops/notify/notifiers.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakeBotApi } from './fake-bot-api.js';
import { FakeControl, events } from './fake-control.js';
import { capturedLogger, turn } from './log-capture.js';

const TOKEN = '7012345678:AAH-test-token-not-a-real-one_x9';

let api: FakeBotApi;
let control: FakeControl;
let clock: ManualClock;
let log: ReturnType<typeof capturedLogger>;
let notifiers: Notifiers;

function start(extra = ''): Notifiers {
  const yaml = `notify:\n  telegram:\n    apiRoot: ${api.url}\n    chatIds: [1001, "1002"]\n    events: [fill, kill-switch, strategy-fault]\n${extra}`;
  const loaded = parseConfig(yaml, 'notify.yaml', {});
  return startNotifiers(loaded.config.notify, control, { clock, logger: log.logger, env: { SEXTANT_TELEGRAM_TOKEN: TOKEN } })!;
}

/** Sends `text` from `chatId` and resolves with the bot's next message to that chat. */
async function ask(chatId: string, text: string): Promise<{ text: string; reply_markup?: unknown }> {
  const before = api.sent.filter((m) => m.chat_id === chatId).length;
  api.sendText(chatId, text);
  await api.until(() => api.sent.filter((m) => m.chat_id === chatId).length > before);
  return api.sent.filter((m) => m.chat_id === chatId)[before]!;
}

beforeEach(async () => {
  api = new FakeBotApi(TOKEN);
  await api.listen();
  control = new FakeControl();
  clock = new ManualClock(control.nowMs);
  log = capturedLogger();
  notifiers = start();
});

afterEach(async () => {
  await notifiers.stop();
  await api.close();
});

describe('Telegram notifications', () => {
  it("sends each notice to every allowed chat, filtered by the channel's events", async () => {
    control.emit(events.accepted(clock.now()));
    control.emit(events.rejected(clock.now()));
    control.emit(events.halted(clock.now()));
    const sent = await api.sentCount(2);
    expect(sent.map((m) => m.chat_id).sort()).toEqual(['1001', '1002']);
    for (const m of sent) expect(m.text).toBe('KILL SWITCH: trading halted: drawdown 12% above 10%');
    control.emit(events.fill(clock.now()));
    await api.sentCount(4);
    await notifiers.channels[0]!.idle();
    // The accepted order and the rejection (not in its events) were never sent.
    expect(api.sent).toHaveLength(4);
    expect(api.sent[3]!.text).toBe('Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.1');
  });

  it('retries a chat the Bot API refused with 429 (after retry_after, through the clock), and only that chat', async () => {
    api.failNext.set('sendMessage', [429]);
    control.emit(events.faulted(clock.now()));
    await api.sentCount(1);
    for (let i = 0; i < 50 && api.sent.length < 2; i++) {
      clock.advance(1000);
      await turn();
    }
    const sent = await api.sentCount(2);
    expect(sent.map((m) => m.chat_id).sort()).toEqual(['1001', '1002']);
    await notifiers.channels[0]!.idle();
    expect(api.sent).toHaveLength(2);
    expect(notifiers.channels[0]!.counts).toMatchObject({ sent: 1, failed: 0 });
  });
});

describe('Telegram chat commands', () => {
  it("answers /status, /balance, /positions and /daily from the Control's reads", async () => {
    const status = await ask('1001', '/status');
    expect(status.text).toContain('Trading: active');
    expect(status.text).toContain('mm (market-maker) running');
    expect((await ask('1001', '/balance')).text).toContain('spot USDT: 100000.5 (available 99000)');
    expect((await ask('1002', '/positions')).text).toContain('cmt_btcusdt long 0.01 @ 90000.0');
    expect((await ask('1001', '/daily')).text).toMatch(/^Daily summary /);
    expect((await ask('1001', '/status@sextant_test_bot')).text).toContain('Trading: active');
  });

  it('pauses (once confirmed) and resumes (at once) a strategy through the Control, as the chat', async () => {
    const asked = await ask('1002', '/pause mm cancel spread too wide');
    expect(asked.text).toMatch(/^Pause mm \(no new intents\) and cancel its 2 open orders\?\nReason: spread too wide\nSend \/confirm \d{6} within 30 s/);
    expect(control.commands).toHaveLength(0);
    const code = /\/confirm (\d{6})/.exec(asked.text)![1]!;
    expect((await ask('1002', `/confirm ${code}`)).text).toBe('mm paused');
    expect(control.commands.at(-1)).toEqual({
      command: 'pause',
      args: ['mm', { cancelOrders: true, reason: 'spread too wide' }],
      actor: { via: 'telegram', who: '1002' },
    });
    expect(control.strategyList[0]!.state).toBe('paused');
    // An unknown strategy is refused at once: nothing to confirm.
    expect((await ask('1002', '/pause nope')).text).toBe('refused (404): no strategy nope');
    expect(control.commands).toHaveLength(1);
    expect((await ask('1001', '/resume mm')).text).toBe('mm resumed');
    expect(control.commands.at(-1)).toEqual({ command: 'resume', args: ['mm'], actor: { via: 'telegram', who: '1001' } });
    expect((await ask('1001', '/pause')).text).toBe('usage: /pause ID [cancel] [reason]');
  });

  it('halts only after /confirm with the code it gave, within its time', async () => {
    const asked = await ask('1001', '/halt spread too wide');
    const code = /\/confirm (\d{6})/.exec(asked.text)![1]!;
    expect(asked.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Confirm halt', callback_data: `confirm:${code}` }]] });
    expect(control.commands).toHaveLength(0);
    const wrong = code === '111111' ? '222222' : '111111';
    expect((await ask('1001', `/confirm ${wrong}`)).text).toBe('nothing to confirm with that code');
    // Another chat cannot confirm this chat's halt.
    expect((await ask('1002', `/confirm ${code}`)).text).toBe('nothing to confirm with that code');
    expect(control.commands).toHaveLength(0);
    expect((await ask('1001', `/confirm ${code}`)).text).toBe('halted: spread too wide');
    expect(control.commands).toEqual([{ command: 'halt', args: ['spread too wide'], actor: { via: 'telegram', who: '1001' } }]);

    const again = await ask('1001', '/halt');
    const code2 = /\/confirm (\d{6})/.exec(again.text)![1]!;
    clock.advance(30_001);
    expect((await ask('1001', `/confirm ${code2}`)).text).toBe('that confirmation expired (30 s): nothing was done; send /halt again');
    expect(control.commands).toHaveLength(1);
  });

  it('halts when the confirmation button is pressed', async () => {
    const asked = await ask('1002', '/halt');
    const code = /\/confirm (\d{6})/.exec(asked.text)![1]!;
    const before = api.sent.length;
    const callbackId = api.pressButton('1002', `confirm:${code}`);
    await api.until(() => api.sent.length > before && api.answered.includes(callbackId));
    expect(api.sent.at(-1)).toMatchObject({ chat_id: '1002', text: 'halted: halted from Telegram chat 1002' });
    expect(control.commands).toEqual([{ command: 'halt', args: ['halted from Telegram chat 1002'], actor: { via: 'telegram', who: '1002' } }]);
  });

  it('answers a flood of reads from one chat once, ignores the rest (a halt still asks), and takes them again once the minute has room', async () => {
    for (let i = 0; i < 10; i++) expect((await ask('1001', '/balance')).text).toContain('spot USDT');
    expect((await ask('1001', '/status')).text).toBe('too many commands (more than 10 in 60 s): ignoring them for 60 s');
    const told = api.sent.length;
    for (let i = 0; i < 5; i++) api.sendText('1001', '/orders');
    // Updates are handled in order: once the other chat has its answer, the flood was handled, and not answered.
    expect((await ask('1002', '/status')).text).toContain('Trading: active');
    expect(api.sent.slice(told).filter((m) => m.chat_id === '1001')).toHaveLength(0);
    // A halt is not held up by a flood of reads: it asks to be confirmed.
    expect((await ask('1001', '/halt')).text).toMatch(/^Halt trading/);
    clock.advance(60_000);
    expect((await ask('1001', '/status')).text).toContain('Trading: active');
  });

  it('ignores chats not allowed, logging each once an hour, and never logs the token', async () => {
    api.sendText('999', '/status');
    api.sendText('999', '/halt');
    const b = api.pressButton('999', 'confirm:123456');
    // Updates are handled in order: once an allowed chat has its answer, the others were handled.
    await ask('1001', '/status');
    expect(api.sent.filter((m) => m.chat_id === '999')).toHaveLength(0);
    expect(api.answered).not.toContain(b);
    expect(control.commands).toHaveLength(0);
    const ignoredLines = () => log.lines.filter((l) => l.includes('not in notify.telegram.chatIds'));
    expect(ignoredLines()).toHaveLength(1);
    expect(JSON.parse(ignoredLines()[0]!)).toMatchObject({ chatId: '999', level: 'warn' });
    expect(notifiers.telegram!.ignored).toBe(3);

    clock.advance(3_600_000);
    api.sendText('999', '/status');
    await ask('1001', '/status');
    expect(ignoredLines()).toHaveLength(2);
    expect(log.text()).not.toContain(TOKEN);
    expect(log.text()).not.toContain('AAH-test-token');
  });
});

describe('Telegram start and stop', () => {
  it('waits for the Bot API through the clock when it is down at start, then takes commands', async () => {
    await notifiers.stop();
    api.failNext.set('getMe', [500, 500]);
    const calls = api.calls.length;
    notifiers = start();
    for (let i = 0; i < 100 && !api.calls.slice(calls).includes('getUpdates'); i++) {
      clock.advance(1000);
      await turn();
    }
    expect(api.calls.slice(calls).filter((c) => c === 'getMe')).toHaveLength(3);
    expect((await ask('1001', '/status')).text).toContain('Trading: active');
    expect(log.text()).toContain('Bot API not reachable');
    expect(log.text()).not.toContain(TOKEN);
  });

  it('sends only, without polling, when commands are off', async () => {
    await notifiers.stop();
    const calls = api.calls.length;
    notifiers = start('    commands: false\n');
    control.emit(events.halted(clock.now()));
    await api.until(() => api.sent.length >= 2);
    // (A getMe of the bot stopped above may still arrive: it stops before polling.)
    expect(api.calls.slice(calls).filter((c) => c !== 'getMe')).toEqual(['sendMessage', 'sendMessage']);
  });
});
