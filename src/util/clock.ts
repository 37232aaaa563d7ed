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
  fn: (arg: unknown) => void;
  arg: unknown;
  /** Repeats every this many ms (0: once). */
  everyMs: number;
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

  /** Runs `fn(arg)` when virtual time reaches `atMs` (now, at the earliest). */
  at<A>(atMs: number, fn: (arg: A) => void, arg?: A, wakes = false): void {
    this.push({ at: Math.max(atMs, this.now()), seq: this.seq++, fn: fn as (arg: unknown) => void, arg, everyMs: 0, wakes });
  }

  /** Runs `fn` at `firstMs` and then every `periodMs`, for as long as the clock is driven. */
  every(firstMs: number, periodMs: number, fn: () => void): void {
    if (!(periodMs > 0)) throw new RangeError('a period must be above 0 ms');
    this.push({ at: Math.max(firstMs, this.now()), seq: this.seq++, fn, arg: undefined, everyMs: periodMs, wakes: false });
  }

  private push(t: Timer): void {
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
      }, undefined, true),
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
    if (top.everyMs > 0) {
      // The same timer goes back in, a period later (after the others due at that instant).
      top.at += top.everyMs;
      top.seq = this.seq++;
      this.push(top);
    }
    top.fn(top.arg);
    return top.wakes;
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
