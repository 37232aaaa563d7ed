// The notifier hub from the config over a Control: nothing without a notify section, missing secrets named (never
// their values) before anything starts, a hung receiver that never delays the event listener (counted, not timed),
// the daily summary at its UTC time to its channels only, and a stop that lets queued messages go.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../../../src/config/load.js';
import { NotifyConfigError, startNotifiers, type Notifiers } from '../../../../src/ops/notify/notifiers.js';
import type { WebhookPayload } from '../../../../src/ops/notify/webhook.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { silentLogger } from '../../../../src/util/logger.js';
import { FakeControl, events } from './fake-control.js';
import { turn } from './log-capture.js';
import { WebhookReceiver } from './webhook-receiver.js';

let receiver: WebhookReceiver;
let other: WebhookReceiver;
let control: FakeControl;
let clock: ManualClock;
let notifiers: Notifiers | undefined;

function notifyConfig(yaml: string) {
  return parseConfig(yaml, 'notify.yaml', {}).config.notify;
}

beforeEach(async () => {
  receiver = new WebhookReceiver();
  other = new WebhookReceiver();
  await receiver.listen();
  await other.listen();
  control = new FakeControl();
  clock = new ManualClock(control.nowMs);
});

afterEach(async () => {
  await notifiers?.stop();
  notifiers = undefined;
  await receiver.close();
  await other.close();
});

describe('startNotifiers', () => {
  it('runs nothing without a notify section', () => {
    expect(notifyConfig('mode: live\n')).toBeUndefined();
    expect(startNotifiers(undefined, control, { clock, logger: silentLogger, env: {} })).toBeUndefined();
    expect(control.listeners.size).toBe(0);
  });

  it('names every missing secret at once, never a value, and starts nothing', () => {
    const cfg = notifyConfig(
      [
        'notify:',
        '  webhooks: [{ url: "http://127.0.0.1:1/x", secretEnv: HOOK_A }, { url: "http://127.0.0.1:1/y", secretEnv: HOOK_B }]',
        '  discord: [{ urlEnv: DISCORD_URL }]',
        '  telegram: { chatIds: [1] }',
      ].join('\n'),
    );
    const env = { HOOK_B: 'present-secret-value', HOOK_B_FILE: '/nowhere', DISCORD_URL: 'not-a-url' };
    let error: unknown;
    try {
      startNotifiers(cfg, control, { clock, logger: silentLogger, env });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(NotifyConfigError);
    expect((error as NotifyConfigError).problems).toEqual([
      'notify.webhooks[0] (webhook-0) secretEnv: HOOK_A (or HOOK_A_FILE) is not set',
      'notify.webhooks[1] (webhook-1) secretEnv: set either HOOK_B or HOOK_B_FILE, not both',
      'notify.discord[0] (discord-0) urlEnv: DISCORD_URL is not an http(s) URL',
      'notify.telegram tokenEnv: SEXTANT_TELEGRAM_TOKEN (or SEXTANT_TELEGRAM_TOKEN_FILE) is not set',
    ]);
    expect(String(error)).not.toContain('present-secret-value');
    expect(String(error)).not.toContain('not-a-url');
    expect(control.listeners.size).toBe(0);
  });

  it('reads a secret from its _FILE variant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-notify-'));
    writeFileSync(join(dir, 'hook'), 'from-a-file-secret\n');
    notifiers = startNotifiers(notifyConfig(`notify:\n  webhooks: [{ url: "${receiver.url}", secretEnv: HOOK }]\n`), control, {
      clock,
      logger: silentLogger,
      env: { HOOK_FILE: join(dir, 'hook') },
    });
    control.emit(events.halted(clock.now()));
    const [r] = await receiver.count(1);
    const { createHmac } = await import('node:crypto');
    expect(r!.headers['x-sextant-signature']).toBe(`sha256=${createHmac('sha256', 'from-a-file-secret').update(r!.body).digest('hex')}`);
  });

  it('a hung receiver never delays the listener: every event returns having only enqueued', async () => {
    receiver.hang = true;
    notifiers = startNotifiers(
      notifyConfig(
        `notify:\n  webhooks: [{ url: "${receiver.url}", secretEnv: HOOK, queueSize: 50, maxPerMinute: 600, events: [fill, kill-switch], burst: { max: 100000 } }]\n`,
      ),
      control,
      { clock, logger: silentLogger, env: { HOOK: 'hung-receiver-secret' } },
    )!;
    const channel = notifiers.channels[0]!;
    for (let i = 0; i < 1000; i++) control.emit(events.fill(clock.now(), 'mm', i));
    // All 1000 calls came back, and not one request was started inside them.
    expect(notifiers.listened.events).toBe(1000);
    expect(receiver.received).toHaveLength(0);
    expect(channel.pending).toBe(50);
    // The first request reaches the receiver, which never answers it.
    await receiver.count(1);
    for (let i = 0; i < 1000; i++) control.emit(events.fill(clock.now(), 'mm', 1000 + i));
    expect(notifiers.listened.events).toBe(2000);
    // Bounded: one in flight, the rest queued (beyond the rate limit's 600, counted for its "N more").
    expect(channel.pending).toBe(49);
    expect(channel.counts).toMatchObject({ accepted: 2000, queued: 600, overflowed: 550 });
    await turn();
    expect(receiver.received).toHaveLength(1);
    expect(control.listeners.size).toBe(1);
    await notifiers.stop();
    expect(control.listeners.size).toBe(0);
  });

  it('sends the daily summary at its UTC time, to its channels only, every day', async () => {
    // 2023-11-14 22:13:20 UTC.
    control.equityList = [
      { surface: 'spot', value: '100000', atMs: control.nowMs - 3_600_000 },
      { surface: 'spot', value: '100250.5', atMs: control.nowMs - 60_000 },
    ];
    control.fillList = [
      {
        clientOid: 'a',
        orderId: '1',
        fillId: 'f1',
        strategyId: 'mm',
        symbol: 'BTCUSDT_SPBL',
        price: '90000',
        size: '0.001',
        fee: '0.09',
        atMs: control.nowMs - 1000,
      },
      {
        clientOid: 'b',
        orderId: '2',
        fillId: 'f2',
        strategyId: 'mm',
        symbol: 'BTCUSDT_SPBL',
        price: '90001',
        size: '0.001',
        fee: '0.09',
        atMs: control.nowMs - 90_000_000,
      },
    ];
    notifiers = startNotifiers(
      notifyConfig(
        [
          'notify:',
          `  webhooks: [{ name: ops, url: "${receiver.url}", secretEnv: HOOK }, { name: quiet, url: "${other.url}", secretEnv: HOOK }]`,
          '  daily: { at: "23:00", channels: [ops] }',
        ].join('\n'),
      ),
      control,
      { clock, logger: silentLogger, env: { HOOK: 'daily-secret-value' } },
    )!;
    clock.set(Date.UTC(2023, 10, 14, 22, 59, 59, 999));
    await turn();
    expect(receiver.received).toHaveLength(0);
    clock.advance(1);
    const [r] = await receiver.count(1);
    const payload = JSON.parse(r!.body) as WebhookPayload;
    expect(payload.topic).toBe('daily');
    expect(payload.text.split('\n')).toEqual([
      'Daily summary 2023-11-14 23:00 UTC (the last 24 h)',
      'Trading: active',
      'Equity spot: 100250.5 (+250.5)',
      'Fills: 1 (mm 1)',
      'Strategies (realised PnL, fees, fills in all):',
      '  mm running: PnL 12.5, fees 0.75, 4 fills, 2 open orders',
      '  grid running: PnL 12.5, fees 0.75, 4 fills, 2 open orders',
    ]);
    // (Answered before the clock jumps a day: a request still out then would time out.)
    await notifiers.channels[0]!.idle();
    clock.advance(86_400_000);
    await receiver.count(2);
    expect((JSON.parse(receiver.received[1]!.body) as WebhookPayload).text).toMatch(/^Daily summary 2023-11-15 23:00 UTC/);
    await notifiers.channels[1]!.idle();
    expect(other.received).toHaveLength(0);
  });

  it('a stop lets the queued messages go within its grace, then stops listening', async () => {
    notifiers = startNotifiers(notifyConfig(`notify:\n  webhooks: [{ url: "${receiver.url}", secretEnv: HOOK }]\n`), control, {
      clock,
      logger: silentLogger,
      env: { HOOK: 'stop-secret-value' },
    })!;
    control.emit(events.halted(clock.now()));
    control.emit(events.faulted(clock.now()));
    await notifiers.stop(5000);
    expect(receiver.received.map((r) => (JSON.parse(r.body) as WebhookPayload).topic)).toEqual(['kill-switch', 'strategy-fault']);
    control.emit(events.active(clock.now()));
    await turn();
    expect(receiver.received).toHaveLength(2);
  });
});
