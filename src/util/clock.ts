// The single source of "now": live code reads wall time here, backtests swap in a virtual clock.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to (tests, backtests). */
export class ManualClock implements Clock {
  constructor(private t = 0) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    this.t = ms;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  /** True when `fn` resolves a promise: code waiting on it runs as microtasks after `fn` returns. */
  wakes: boolean;
}

/**
 * Virtual time with timers (backtests): nothing moves until the driver runs the next due timer. Timers due at
 * the same instant run in the order they were set, so a run is the same every time.
 */
export class VirtualClock extends ManualClock {
  private heap: Timer[] = [];
  private seq = 0;
  /** Sleeps not yet over: code waiting on virtual time. */
  sleeping = 0;

  /** Runs `fn` when virtual time reaches `atMs` (now, at the earliest). */
  at(atMs: number, fn: () => void, wakes = false): void {
    const t: Timer = { at: Math.max(atMs, this.now()), seq: this.seq++, fn, wakes };
    const h = this.heap;
    let i = h.push(t) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(t, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = t;
  }

  /** Resolves after `ms` of virtual time. */
  sleep(ms: number): Promise<void> {
    this.sleeping++;
    return new Promise((resolve) =>
      this.at(this.now() + ms, () => {
        this.sleeping--;
        resolve();
      }, true),
    );
  }

  /** When the next timer is due (Infinity when none is set). */
  nextAt(): number {
    return this.heap.length ? this.heap[0]!.at : Number.POSITIVE_INFINITY;
  }

  /** Moves time to the next timer and runs it; true when it woke waiting code (let microtasks run then). */
  runNext(): boolean {
    const h = this.heap;
    const top = h[0];
    if (!top) return false;
    const last = h.pop()!;
    if (h.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && before(h[r]!, h[l]!) ? r : l;
        if (!before(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    if (top.at > this.now()) this.set(top.at);
    top.fn();
    return top.wakes;
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
