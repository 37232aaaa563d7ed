// The rate of chat commands one chat may send: at most `max` taken in any `windowMs` (a sliding window, through the
// clock). Past it, commands are ignored until the window has room again, and the chat is told once per flood, not
// once per command ignored. Only commands taken count: a chat that keeps flooding gets its room back as its own
// taken commands age out.
import type { TimeSource } from '../../util/clock.js';

/** What becomes of one command: taken; ignored, the chat told now (the first of a flood) with how long; ignored silently. */
export type RateVerdict = { verdict: 'take' } | { verdict: 'tell'; waitMs: number } | { verdict: 'ignore' };

export class ChatRate {
  /** Per chat, when each command taken in the window was taken, oldest first. */
  private readonly taken = new Map<string, number[]>();
  /** Chats told of the flood they are in. */
  private readonly told = new Set<string>();

  constructor(
    readonly limits: { max: number; windowMs: number },
    private readonly clock: TimeSource,
  ) {
    if (!(limits.max >= 1) || !(limits.windowMs > 0)) throw new RangeError('a chat command rate needs max >= 1 and windowMs > 0');
  }

  /** A command from `chatId`, now. */
  take(chatId: string): RateVerdict {
    const now = this.clock.now();
    const times = this.taken.get(chatId) ?? [];
    while (times.length > 0 && now - times[0]! >= this.limits.windowMs) times.shift();
    if (times.length < this.limits.max) {
      times.push(now);
      this.taken.set(chatId, times);
      this.told.delete(chatId);
      return { verdict: 'take' };
    }
    if (this.told.has(chatId)) return { verdict: 'ignore' };
    this.told.add(chatId);
    return { verdict: 'tell', waitMs: times[0]! + this.limits.windowMs - now };
  }
}
