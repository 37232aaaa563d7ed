// The two gates a channel's notices pass before its queue: bursts of fills and of rejections summarised at the end
// of their window, and the per-minute rate limit whose excess is summarised as "N more" when the minute ends.
// Both decide at once (the caller is the trading loop's listener) and set at most one clock timer each.
import type { NotifyEvent } from '../../config/schema.js';
import type { Clock, ClockTimer } from '../../util/clock.js';
import type { Notice } from './notice.js';

const MINUTE_MS = 60_000;

/** Topics whose bursts are summarised. */
const BURSTY: ReadonlySet<Notice['topic']> = new Set<NotifyEvent>(['fill', 'rejection']);

/** Topics that always pass the rate limit: a kill switch must be heard, a daily summary is one a day. */
const ALWAYS: ReadonlySet<Notice['topic']> = new Set<Notice['topic']>(['kill-switch', 'daily']);

interface BurstWindow {
  startMs: number;
  count: number;
  held: number;
  byStrategy: Map<string, number>;
  last: string;
  timer?: ClockTimer;
}

/** "mm 3, grid 2": counts by name, largest first. */
function countsText(counts: ReadonlyMap<string, number>): string {
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
}

/**
 * Fills and rejections: the first `max` of a window go out one by one; the rest are held and said in one summary
 * when the window ends (how many, by strategy, and the last one).
 */
export class BurstGate {
  private readonly windows = new Map<Notice['topic'], BurstWindow>();

  constructor(
    private readonly opts: { windowMs: number; max: number },
    private readonly clock: Clock,
    private readonly emit: (summary: Notice) => void,
  ) {}

  /** True: pass the notice on now; false: it is held for its window's summary. */
  admit(notice: Notice): boolean {
    if (!BURSTY.has(notice.topic)) return true;
    const now = this.clock.now();
    let w = this.windows.get(notice.topic);
    if (w && now - w.startMs >= this.opts.windowMs) {
      // The window is over (its timer not yet run): its summary first.
      this.flush(notice.topic);
      w = undefined;
    }
    if (!w) {
      w = { startMs: now, count: 0, held: 0, byStrategy: new Map(), last: '' };
      this.windows.set(notice.topic, w);
    }
    w.count++;
    if (w.count <= this.opts.max) return true;
    w.held++;
    const who = notice.strategyId ?? 'other';
    w.byStrategy.set(who, (w.byStrategy.get(who) ?? 0) + 1);
    w.last = notice.text;
    const topic = notice.topic;
    w.timer ??= this.clock.setTimer(() => this.flush(topic), w.startMs + this.opts.windowMs - now);
    return false;
  }

  private flush(topic: Notice['topic']): void {
    const w = this.windows.get(topic);
    if (!w) return;
    this.windows.delete(topic);
    w.timer?.cancel();
    if (w.held === 0) return;
    const what = topic === 'fill' ? (w.held === 1 ? 'fill' : 'fills') : w.held === 1 ? 'rejection' : 'rejections';
    const seconds = Math.round(this.opts.windowMs / 1000);
    this.emit({
      topic: 'summary',
      atMs: this.clock.now(),
      strategyId: null,
      text: `${w.held} more ${what} within ${seconds} s (${countsText(w.byStrategy)}); the last: ${w.last}`,
    });
  }

  /** Cancels the pending summaries' timers (nothing is said after a stop). */
  stop(): void {
    for (const w of this.windows.values()) w.timer?.cancel();
    this.windows.clear();
  }
}

/**
 * At most `maxPerMinute` messages in a minute (a window from its first message); the excess is counted by topic
 * and said in one "N more" message when the minute ends, which opens the next minute. Kill-switch messages and
 * the daily summary always pass (and count).
 */
export class RateGate {
  private startMs: number | undefined;
  private sent = 0;
  private readonly suppressed = new Map<string, number>();
  private timer: ClockTimer | undefined;
  /** Messages held back in all, since the start. */
  suppressedTotal = 0;

  constructor(
    private readonly maxPerMinute: number,
    private readonly clock: Clock,
    private readonly emit: (summary: Notice) => void,
  ) {}

  /** True: the message may go now; false: it is counted for the next "N more". */
  admit(notice: Notice): boolean {
    const now = this.clock.now();
    if (this.startMs === undefined || now - this.startMs >= MINUTE_MS) {
      if (this.suppressed.size > 0) this.flush();
      if (this.startMs === undefined || now - this.startMs >= MINUTE_MS) {
        this.startMs = now;
        this.sent = 0;
      }
    }
    if (ALWAYS.has(notice.topic) || this.sent < this.maxPerMinute) {
      this.sent++;
      return true;
    }
    this.suppressed.set(notice.topic, (this.suppressed.get(notice.topic) ?? 0) + 1);
    this.suppressedTotal++;
    this.timer ??= this.clock.setTimer(() => this.flush(), this.startMs + MINUTE_MS - now);
    return false;
  }

  /** Says what the minute held back; the summary opens the next minute and counts in it. */
  private flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const n = [...this.suppressed.values()].reduce((a, b) => a + b, 0);
    if (n === 0) return;
    const byTopic = countsText(this.suppressed);
    this.suppressed.clear();
    this.startMs = this.clock.now();
    this.sent = 1;
    this.emit({
      topic: 'summary',
      atMs: this.startMs,
      strategyId: null,
      text: `${n} more ${n === 1 ? 'notification' : 'notifications'} held back by the rate limit (${this.maxPerMinute} a minute): ${byTopic}`,
    });
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }
}
