// One notification channel (a webhook, a Discord webhook, the Telegram chats): its filter, burst and rate gates, a
// bounded in-memory queue and the loop that drains it into the receiver, retrying with backoff through the clock.
// Offering a notice only decides and enqueues: a slow or dead receiver fills its own queue and never holds up the
// caller (the trading loop's event listener).
import type { NotifyEvent } from '../../config/schema.js';
import { nextTurn, type Clock, type ClockTimer } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { scrubSecrets } from '../../util/secrets.js';
import type { Notice } from './notice.js';
import { BurstGate, RateGate } from './throttle.js';

/** A failed send: `retryable` when trying again may work (network, timeout, 429, 5xx); `retryAfterMs` when the receiver said. */
export class SendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'SendError';
  }
}

/** Delivers one message to a receiver; throws (a SendError, or anything: retryable) when it was not taken. */
export interface Sender {
  send(notice: Notice): Promise<void>;
}

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface ChannelOptions {
  name: string;
  events: ReadonlyArray<NotifyEvent>;
  maxPerMinute: number;
  queueSize: number;
  burst: { windowMs: number; max: number };
  retry: RetryOptions;
}

/** What a channel has done, counted since its start. */
export interface ChannelCounts {
  /** Notices offered that its filter took. */
  accepted: number;
  queued: number;
  sent: number;
  /** Dropped from a full queue. */
  overflowed: number;
  /** Given up after their tries. */
  failed: number;
}

export class Channel {
  readonly counts: ChannelCounts = { accepted: 0, queued: 0, sent: 0, overflowed: 0, failed: 0 };
  private readonly events: ReadonlySet<string>;
  private readonly burst: BurstGate;
  private readonly rate: RateGate;
  private readonly queue: Notice[] = [];
  private readonly log: Logger;
  private draining = false;
  private stopped = false;
  /** Messages lost (overflow or failure) not yet told to the receiver. */
  private untold = 0;
  private wait: { timer: ClockTimer; resolve: () => void } | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(
    readonly opts: ChannelOptions,
    private readonly sender: Sender,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    this.events = new Set(opts.events);
    this.log = logger.child({ component: 'notify', channel: opts.name });
    this.rate = new RateGate(opts.maxPerMinute, clock, (summary) => this.enqueue(summary));
    this.burst = new BurstGate(opts.burst, clock, (summary) => this.pass(summary));
  }

  get name(): string {
    return this.opts.name;
  }

  /** Messages waiting in the queue. */
  get pending(): number {
    return this.queue.length;
  }

  /** True while a failed message waits for its next try. */
  get backingOff(): boolean {
    return this.wait !== undefined;
  }

  /** A notice from the event stream: filtered by the channel's events, then the burst and rate gates. Returns at once. */
  offer(notice: Notice): void {
    if (this.stopped || !this.events.has(notice.topic)) return;
    this.counts.accepted++;
    if (this.burst.admit(notice)) this.pass(notice);
  }

  /** A message not from the event stream (the daily summary): no filter, no burst rule; the rate limit still applies. */
  deliver(notice: Notice): void {
    if (!this.stopped) this.pass(notice);
  }

  private pass(notice: Notice): void {
    if (this.rate.admit(notice)) this.enqueue(notice);
  }

  private enqueue(notice: Notice): void {
    if (this.stopped) return;
    if (this.queue.length >= this.opts.queueSize) {
      // The oldest goes, sparing kill-switch messages while there are others.
      const i = this.queue.findIndex((n) => n.topic !== 'kill-switch');
      this.queue.splice(i >= 0 ? i : 0, 1);
      this.counts.overflowed++;
      this.untold++;
    }
    this.queue.push(notice);
    this.counts.queued++;
    if (!this.draining) {
      this.draining = true;
      // Sending starts on a later turn of the event loop, never inside the caller's.
      void nextTurn()
        .then(() => this.drain())
        .catch((err: unknown) => this.log.error({ err: errorText(err) }, 'notifications stopped on an error'));
    }
  }

  private async drain(): Promise<void> {
    try {
      while (!this.stopped && this.queue.length > 0) {
        const notice = this.queue.shift()!;
        if (await this.sendWithRetries(notice)) {
          if (this.untold > 0 && !this.stopped) {
            const n = this.untold;
            this.untold = 0;
            this.queue.unshift({
              topic: 'summary',
              atMs: this.clock.now(),
              strategyId: null,
              text: `${n} ${n === 1 ? 'notification was' : 'notifications were'} lost while this receiver was slow or unreachable`,
            });
          }
        } else {
          this.untold++;
        }
      }
    } finally {
      this.draining = false;
      if (this.queue.length === 0 || this.stopped) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  /** True when the receiver took it; false when it was given up (logged). */
  private async sendWithRetries(raw: Notice): Promise<boolean> {
    const { attempts, baseDelayMs, maxDelayMs } = this.opts.retry;
    // What an operator typed (a command's reason) may hold a secret: it leaves the process scrubbed, as a log line does.
    const notice = scrubbedNotice(raw);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sender.send(notice);
        this.counts.sent++;
        return true;
      } catch (err) {
        const retryable = !(err instanceof SendError) || err.retryable;
        if (!retryable || attempt >= attempts || this.stopped) {
          this.counts.failed++;
          this.log.warn({ topic: notice.topic, attempts: attempt, err: errorText(err) }, 'notification dropped');
          return false;
        }
        // The backoff, or the receiver's longer Retry-After: never sooner, never beyond maxDelayMs.
        const backoffMs = baseDelayMs * 2 ** (attempt - 1);
        const asked = err instanceof SendError ? (err.retryAfterMs ?? 0) : 0;
        await this.delay(Math.min(maxDelayMs, Math.max(backoffMs, asked)));
      }
    }
  }

  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(() => {
        this.wait = undefined;
        resolve();
      }, ms);
      this.wait = { timer, resolve };
    });
  }

  /** Resolves once the queue is empty and nothing is being sent, or at once when stopped. */
  idle(): Promise<void> {
    if (this.stopped || (!this.draining && this.queue.length === 0)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops at once: the gates' timers and a backoff wait are canceled; what is still queued is dropped (logged). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.burst.stop();
    this.rate.stop();
    if (this.wait) {
      this.wait.timer.cancel();
      this.wait.resolve();
      this.wait = undefined;
    }
    if (this.queue.length > 0) this.log.info({ dropped: this.queue.length }, 'notifications still queued at stop: dropped');
    this.queue.length = 0;
    if (!this.draining) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

/** An error as one line for a log, with any registered secret (a token, a URL) scrubbed. */
export function errorText(err: unknown): string {
  return scrubSecrets(err instanceof Error ? err.message : String(err));
}

/** A notice with every registered secret taken out of its text and of every string in its event (no text re-parsed). */
function scrubbedNotice(notice: Notice): Notice {
  const text = scrubSecrets(notice.text);
  return { ...notice, text, ...(notice.event ? { event: scrubbed(notice.event) } : {}) };
}

/** A value with each string in it scrubbed, arrays and plain objects walked; anything else as it is. */
function scrubbed<T>(value: T): T {
  if (typeof value === 'string') return scrubSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => scrubbed(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubbed(v)])) as T;
  return value;
}
