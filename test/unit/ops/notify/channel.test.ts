// A channel's gates and queue with a recording sender and a manual clock: the events filter, bursts of fills and
// rejections summarised at the window's end, the per-minute limit's "N more", kill-switch messages past the limit,
// the bounded queue, and sending that never starts inside the caller's turn.
import { describe, expect, it } from '@jest/globals';
import { Channel, SendError, type ChannelOptions, type Sender } from '../../../../src/ops/notify/channel.js';
import { noticeOf, type Notice } from '../../../../src/ops/notify/notice.js';
import { ManualClock } from '../../../../src/util/clock.js';
import { silentLogger } from '../../../../src/util/logger.js';
import { registerSecret } from '../../../../src/util/secrets.js';
import { events } from './fake-control.js';
import { turn } from './log-capture.js';

const T0 = 1_700_000_000_000;

function options(over: Partial<ChannelOptions> = {}): ChannelOptions {
  return {
    name: 'test',
    events: ['fill', 'rejection', 'kill-switch', 'strategy-fault'],
    maxPerMinute: 100,
    queueSize: 100,
    burst: { windowMs: 10_000, max: 3 },
    retry: { attempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000 },
    ...over,
  };
}

/** A sender that records what it was given (and answers at once, or never). */
function recorder(mode: 'ok' | 'never' = 'ok'): Sender & { texts: string[]; started: number; first: string } {
  const r = {
    texts: [] as string[],
    started: 0,
    first: '',
    send: (n: Notice) => {
      if (r.started++ === 0) r.first = n.text;
      if (mode === 'never') return new Promise<void>(() => undefined);
      r.texts.push(n.text);
      return Promise.resolve();
    },
  };
  return r;
}

function notice(e: Parameters<typeof noticeOf>[0]): Notice {
  return noticeOf(e)!;
}

describe('Channel', () => {
  it('sends only the topics it was configured for, in order', async () => {
    const clock = new ManualClock(T0);
    const sender = recorder();
    const ch = new Channel(options({ events: ['kill-switch'] }), sender, clock, silentLogger);
    ch.offer(notice(events.fill(T0)));
    ch.offer(notice(events.halted(T0)));
    ch.offer(notice(events.faulted(T0)));
    ch.offer(notice(events.active(T0)));
    await ch.idle();
    expect(sender.texts).toEqual(['KILL SWITCH: trading halted: drawdown 12% above 10%', 'Trading active again: reset by operator']);
    expect(ch.counts).toMatchObject({ accepted: 2, sent: 2 });
  });

  it('summarises a burst of rejections at the end of its window, by strategy, with the last one', async () => {
    const clock = new ManualClock(T0);
    const sender = recorder();
    const ch = new Channel(options(), sender, clock, silentLogger);
    for (let i = 1; i <= 10; i++) ch.offer(notice(events.rejected(clock.now(), i % 3 === 0 ? 'grid' : 'mm', i)));
    // Fills count apart from rejections.
    ch.offer(notice(events.fill(clock.now())));
    await ch.idle();
    expect(sender.texts).toHaveLength(4);
    clock.advance(9_999);
    await ch.idle();
    expect(sender.texts).toHaveLength(4);
    clock.advance(1);
    await ch.idle();
    expect(sender.texts[4]).toBe('7 more rejections within 10 s (mm 5, grid 2); the last: Rejected: mm order sx_mm_10 rejected: insufficient balance');
    // A new window: one by one again.
    ch.offer(notice(events.rejected(clock.now(), 'mm', 11)));
    await ch.idle();
    expect(sender.texts[5]).toBe('Rejected: mm order sx_mm_11 rejected: insufficient balance');
  });

  it('holds back what passes its rate limit and says "N more" when the minute ends; kill-switch messages always go', async () => {
    const clock = new ManualClock(T0);
    const sender = recorder();
    const ch = new Channel(options({ maxPerMinute: 5, burst: { windowMs: 1000, max: 1000 } }), sender, clock, silentLogger);
    for (let i = 1; i <= 12; i++) ch.offer(notice(events.fill(clock.now(), 'mm', i)));
    ch.offer(notice(events.faulted(clock.now())));
    ch.offer(notice(events.halted(clock.now())));
    await ch.idle();
    expect(sender.texts).toHaveLength(6);
    expect(sender.texts[5]).toMatch(/^KILL SWITCH/);
    clock.advance(60_000);
    await ch.idle();
    expect(sender.texts[6]).toBe('8 more notifications held back by the rate limit (5 a minute): fill 7, strategy-fault 1');
    // The summary opened the next minute and counts in it: 4 more go, the fifth waits.
    for (let i = 13; i <= 17; i++) ch.offer(notice(events.fill(clock.now(), 'mm', i)));
    await ch.idle();
    expect(sender.texts).toHaveLength(11);
    clock.advance(60_000);
    await ch.idle();
    expect(sender.texts[11]).toBe('1 more notification held back by the rate limit (5 a minute): fill 1');
  });

  it("never sends inside the caller's turn; a dead receiver leaves a bounded queue, oldest dropped, kill-switch kept", async () => {
    const clock = new ManualClock(T0);
    const sender = recorder('never');
    const ch = new Channel(options({ queueSize: 10, burst: { windowMs: 1000, max: 1000 }, maxPerMinute: 600 }), sender, clock, silentLogger);
    ch.offer(notice(events.halted(clock.now())));
    for (let i = 1; i <= 500; i++) ch.offer(notice(events.fill(clock.now(), 'mm', i)));
    // Every offer returned with nothing sent: sending starts on a later turn.
    expect(sender.started).toBe(0);
    expect(ch.pending).toBe(10);
    expect(ch.counts.overflowed).toBe(491);
    await turn();
    // The receiver holds the first message (the kill switch's, kept in the full queue) forever; the rest wait, bounded.
    expect(sender.started).toBe(1);
    expect(sender.first).toMatch(/^KILL SWITCH/);
    for (let i = 501; i <= 600; i++) ch.offer(notice(events.fill(clock.now(), 'mm', i)));
    expect(ch.pending).toBe(10);
    expect(sender.started).toBe(1);
    ch.stop();
    await ch.idle();
  });

  it('retries a failed send with doubling backoff, bounded; a refused one is not retried', async () => {
    const clock = new ManualClock(T0);
    const tries: Array<{ text: string; atMs: number }> = [];
    let failures = 2;
    const sender: Sender = {
      send: async (n) => {
        tries.push({ text: n.text, atMs: clock.now() });
        if (n.topic === 'strategy-fault') throw new SendError('answered HTTP 400', false);
        if (failures-- > 0) throw new Error('socket hang up');
      },
    };
    const ch = new Channel(options(), sender, clock, silentLogger);
    ch.offer(notice(events.faulted(clock.now())));
    ch.offer(notice(events.halted(clock.now())));
    for (let i = 0; i < 100 && !ch.backingOff; i++) await turn();
    clock.advance(1000);
    for (let i = 0; i < 100 && !ch.backingOff; i++) await turn();
    clock.advance(2000);
    await ch.idle();
    expect(tries.map((t) => [t.text.slice(0, 12), t.atMs - T0])).toEqual([
      ['Strategy fau', 0],
      ['KILL SWITCH:', 0],
      ['KILL SWITCH:', 1000],
      ['KILL SWITCH:', 3000],
      ['1 notificati', 3000],
    ]);
    expect(ch.counts).toMatchObject({ sent: 2, failed: 1 });
  });

  it('scrubs a secret out of the text and every string of the event, whatever quotes and backslashes they hold', async () => {
    registerSecret('ch4nnel-secret"\\x');
    const clock = new ManualClock(T0);
    const got: Notice[] = [];
    const ch = new Channel(options(), { send: (n) => (got.push(n), Promise.resolve()) }, clock, silentLogger);
    const reason = 'curl -H "Authorization: Bearer [redacted]" http://x and ch4nnel-secret"\\x';
    ch.offer(notice({ kind: 'state', atMs: T0, text: `halted: ${reason}`, data: { state: 'halted', reason, nested: [{ why: reason }] } }));
    await ch.idle();
    expect(got).toHaveLength(1);
    expect(JSON.stringify(got)).not.toContain('ch4nnel-secret');
    expect(got[0]!.event?.data).toMatchObject({ state: 'halted', nested: [{ why: expect.stringContaining('[redacted]') as unknown }] });
  });
});
