// The generic webhook and the Discord webhook against a local receiver over HTTP: the HMAC signature and the signed
// timestamp verified as a receiver would, the content, retries after a 500 through the clock (bounded, then dropped
// with a log line and said later), no retry of a 400, Retry-After honoured, and no secret in any log line.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { parseConfig } from '../../../../src/config/load.js';
import { startNotifiers, type Notifiers } from '../../../../src/ops/notify/notifiers.js';
import type { WebhookPayload } from '../../../../src/ops/notify/webhook.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { FakeControl, events } from './fake-control.js';
import { capturedLogger, turn } from './log-capture.js';
import { WebhookReceiver, type Received } from './webhook-receiver.js';

const SECRET = 'whsec-shared-0123456789abcdef';
const DISCORD_TOKEN = 'dToken-abcdefghijklmnop-XYZ';

let receiver: WebhookReceiver;
let control: FakeControl;
let clock: ManualClock;
let log: ReturnType<typeof capturedLogger>;
let notifiers: Notifiers | undefined;

function start(notifyYaml: string, env: Record<string, string> = {}): Notifiers {
  const loaded = parseConfig(`notify:\n${notifyYaml}`, 'notify.yaml', {});
  notifiers = startNotifiers(loaded.config.notify, control, { clock, logger: log.logger, env: { SEXTANT_HOOK_SECRET: SECRET, ...env } })!;
  return notifiers;
}

const webhookYaml = (url: string, extra = '') =>
  `  webhooks:\n    - { name: ops, url: "${url}/hook", secretEnv: SEXTANT_HOOK_SECRET, events: [fill, kill-switch] }\n  retry: { attempts: 3, baseDelayMs: 1000 }\n${extra}`;

/** What a receiver checks: the signature over the raw body, and the timestamp header against the signed one. */
function verify(r: Received): WebhookPayload {
  const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`);
  const given = Buffer.from(String(r.headers['x-sextant-signature']));
  expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true);
  const payload = JSON.parse(r.body) as WebhookPayload;
  expect(r.headers['x-sextant-timestamp']).toBe(String(payload.timestamp));
  return payload;
}

/** Lets I/O run until the channel waits for its next try (bounded). */
async function backingOff(n = 0): Promise<void> {
  const ch = notifiers!.channels[n]!;
  for (let i = 0; i < 1000 && !ch.backingOff; i++) await turn();
  expect(ch.backingOff).toBe(true);
}

/** Moves the clock a second at a time, with the I/O between, until `done` (bounded). */
async function advanceUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 120 && !done(); i++) {
    clock.advance(1000);
    await turn();
    await turn();
  }
  expect(done()).toBe(true);
}

beforeEach(async () => {
  receiver = new WebhookReceiver();
  await receiver.listen();
  control = new FakeControl();
  clock = new ManualClock(control.nowMs);
  log = capturedLogger();
});

afterEach(async () => {
  await notifiers?.stop();
  notifiers = undefined;
  await receiver.close();
});

describe('generic webhook', () => {
  it('POSTs the notice and its event as JSON, signed with HMAC-SHA256 of the body, the timestamp inside the signed body', async () => {
    start(webhookYaml(receiver.url));
    control.emit(events.accepted(clock.now()));
    control.emit(events.fill(clock.now(), 'mm', 3));
    const [r] = await receiver.count(1);
    expect(r!.path).toBe('/hook');
    expect(r!.headers['content-type']).toBe('application/json');
    const payload = verify(r!);
    expect(payload).toEqual({
      timestamp: clock.now(),
      channel: 'ops',
      topic: 'fill',
      text: 'Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.3',
      atMs: clock.now(),
      strategyId: 'mm',
      event: { kind: 'fill', atMs: clock.now(), text: 'mm bought 0.001 BTCUSDT_SPBL at 90000.3', data: events.fill(clock.now(), 'mm', 3).data },
    });
    // An id above 2^53 stays a string, digit for digit.
    expect(r!.body).toContain('"orderId":"602876318261969333"');
    // A body changed in transit fails the check.
    const forged = createHmac('sha256', SECRET).update(r!.body.replace('0.001', '0.002')).digest('hex');
    expect(r!.headers['x-sextant-signature']).not.toBe(`sha256=${forged}`);
    expect(JSON.stringify(r!.headers) + r!.body).not.toContain(SECRET);
  });

  it('retries after a 500, through the clock, with a fresh signature', async () => {
    start(webhookYaml(receiver.url));
    receiver.statuses.push(500);
    control.emit(events.halted(clock.now()));
    await receiver.count(1);
    await backingOff();
    expect(receiver.received).toHaveLength(1);
    clock.advance(999);
    expect(notifiers!.channels[0]!.backingOff).toBe(true);
    clock.advance(1);
    const [first, second] = await receiver.count(2);
    expect(verify(first!).timestamp).toBe(control.nowMs);
    expect(verify(second!)).toMatchObject({
      timestamp: control.nowMs + 1000,
      topic: 'kill-switch',
      text: 'KILL SWITCH: trading halted: drawdown 12% above 10%',
    });
    await notifiers!.channels[0]!.idle();
    expect(notifiers!.channels[0]!.counts).toMatchObject({ sent: 1, failed: 0 });
  });

  it('gives up after its tries with a log line, and says so once the receiver answers again', async () => {
    start(webhookYaml(receiver.url));
    receiver.statuses.push(500, 503, 500);
    control.emit(events.fill(clock.now(), 'mm', 1));
    control.emit(events.fill(clock.now(), 'mm', 2));
    await advanceUntil(() => receiver.received.length >= 4);
    await notifiers!.channels[0]!.idle();
    const bodies = receiver.received.map((r) => verify(r));
    expect(bodies.map((b) => b.text)).toEqual([
      'Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.1',
      'Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.1',
      'Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.1',
      'Fill: mm bought 0.001 BTCUSDT_SPBL at 90000.2',
      '1 notification was lost while this receiver was slow or unreachable',
    ]);
    const dropped = log.lines.filter((l) => l.includes('notification dropped')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(dropped).toEqual([expect.objectContaining({ channel: 'ops', topic: 'fill', attempts: 3, err: 'answered HTTP 500' })]);
    expect(bodies[4]!.topic).toBe('summary');
    expect(log.text()).not.toContain(SECRET);
  });

  it('does not retry a 400; waits for Retry-After on a 429', async () => {
    start(webhookYaml(receiver.url));
    receiver.statuses.push(400, 429);
    control.emit(events.fill(clock.now(), 'mm', 1));
    control.emit(events.fill(clock.now(), 'mm', 2));
    await receiver.count(2);
    await backingOff();
    // The 400 was given up at once; the 429 waits the 2 s its Retry-After says, not the 1 s backoff.
    expect(notifiers!.channels[0]!.counts.failed).toBe(1);
    clock.advance(1999);
    expect(notifiers!.channels[0]!.backingOff).toBe(true);
    clock.advance(1);
    const all = await receiver.count(3);
    expect(all.map((r) => verify(r).text.slice(-7))).toEqual(['90000.1', '90000.2', '90000.2']);
  });
});

describe('Discord webhook', () => {
  it('POSTs {content} to the URL from the environment', async () => {
    start(`  discord:\n    - { urlEnv: SEXTANT_DISCORD_URL, events: [strategy-fault] }\n`, {
      SEXTANT_DISCORD_URL: `${receiver.url}/api/webhooks/123/${DISCORD_TOKEN}`,
    });
    control.emit(events.fill(clock.now()));
    control.emit(events.faulted(clock.now()));
    const [r] = await receiver.count(1);
    expect(r!.path).toBe(`/api/webhooks/123/${DISCORD_TOKEN}`);
    expect(JSON.parse(r!.body)).toEqual({ content: 'Strategy faulted: grid faulted: TypeError x is undefined' });
    expect(r!.headers['x-sextant-signature']).toBeUndefined();
    expect(notifiers!.channels[0]!.name).toBe('discord-0');
  });

  it("a receiver that is down: retried, then dropped with a log line that holds no part of the URL's token", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    start(`  discord:\n    - { urlEnv: SEXTANT_DISCORD_URL }\n  retry: { attempts: 2, baseDelayMs: 500 }\n`, {
      SEXTANT_DISCORD_URL: `http://127.0.0.1:${port}/api/webhooks/123/${DISCORD_TOKEN}`,
    });
    control.emit(events.halted(clock.now()));
    await advanceUntil(() => log.text().includes('notification dropped'));
    const line = JSON.parse(log.lines.find((l) => l.includes('notification dropped'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ channel: 'discord-0', attempts: 2, err: 'request failed: ECONNREFUSED' });
    expect(log.text()).not.toContain(DISCORD_TOKEN);
    expect(log.text()).not.toContain('/api/webhooks');
  });
});
