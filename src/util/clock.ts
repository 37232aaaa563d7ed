// The single source of time: "now", timers and sleeps. Live code reads wall time here and nowhere else;
// backtests swap in a virtual clock whose timers run only when the driver moves time.

/** What reads the time and nothing more. */
export interface TimeSource {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** A timer set through a clock: cancel it before it runs, and it never does. */
export interface ClockTimer {
  cancel(): void;
}

export interface Clock extends TimeSource {
  /** Runs `fn` once, `ms` from now. A wall-clock timer does not keep the process alive. */
  setTimer(fn: () => void, ms: number): ClockTimer;
  /** Resolves `ms` from now. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  // A pending sleep keeps the process alive, as the awaited work it stands for does.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Waits `ms` on `clock`, or less when `until` settles first (the timer then canceled): a wait that a stop cuts short.
 * Does not keep the process alive (a clock's timer).
 */
export async function sleepUnless(clock: Clock, ms: number, until: Promise<unknown>): Promise<void> {
  let timer: ClockTimer | undefined;
  try {
    await Promise.race([new Promise<void>((resolve) => (timer = clock.setTimer(resolve, ms))), until]);
  } finally {
    timer?.cancel();
  }
}

/**
 * Gives every pending I/O callback and microtask its turn before going on (not a timer: no time passes). Work
 * that would otherwise hold the event loop, such as a burst of intents, calls it between steps.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Starts a stopwatch on the process's monotonic clock: it returns the milliseconds elapsed (timings, not time of day). */
export function stopwatch(): () => number {
  const t0 = performance.now();
  return () => performance.now() - t0;
}

/** A clock that only moves when told to (tests): its timers run, in time order, as it is moved past them. */
export class ManualClock implements Clock {
  private timers: Array<{ at: number; seq: number; fn: () => void }> = [];
  private timerSeq = 0;

  constructor(protected t = 0) {}
  now(): number {
    return this.t;
  }
  set(ms: number): void {
    while (this.timers.length > 0) {
      const due = this.timers.filter((x) => x.at <= ms).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      if (due.at > this.t) this.t = due.at;
      due.fn();
    }
    this.t = ms;
  }
  advance(ms: number): void {
    this.set(this.t + ms);
  }
  setTimer(fn: () => void, ms: number): ClockTimer {
    const timer = { at: this.t + Math.max(0, ms), seq: this.timerSeq++, fn };
    this.timers.push(timer);
    return { cancel: () => void (this.timers = this.timers.filter((x) => x !== timer)) };
  }
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(resolve, ms));
  }
}

interface Timer {
  at: number;
  seq: number;
  fn: (arg: unknown) => void;
  arg: unknown;
  /** Repeats every this many ms (0: once). */
  everyMs: number;
  /** A sleep's end (see VirtualClock.wait): `fn` wakes code waiting on it, which runs as microtasks after `fn` returns. */
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

  /** One-shot timers that have run, kept for the next ones (a run sets millions: no garbage for each). */
  private spare: Timer[] = [];

  /** Runs `fn(arg)` when virtual time reaches `atMs` (now, at the earliest). */
  at<A>(atMs: number, fn: (arg: A) => void, arg?: A): void {
    this.schedule(atMs, fn, arg, false);
  }

  private schedule<A>(atMs: number, fn: (arg: A) => void, arg: A | undefined, wakes: boolean): void {
    const at = atMs > this.t ? atMs : this.t;
    const t = this.spare.pop();
    if (!t) {
      this.push({ at, seq: this.seq++, fn: fn as (arg: unknown) => void, arg, everyMs: 0, wakes });
      return;
    }
    t.at = at;
    t.seq = this.seq++;
    t.fn = fn as (arg: unknown) => void;
    t.arg = arg;
    t.wakes = wakes;
    this.push(t);
  }

  /** Moves time to `ms` (timers are run by runNext only: none is run here). */
  override set(ms: number): void {
    this.t = ms;
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

  override setTimer(fn: () => void, ms: number): ClockTimer {
    const timer = new VirtualTimer(fn);
    this.at(this.now() + Math.max(0, ms), runVirtualTimer, timer);
    return timer;
  }

  /** Resolves after `ms` of virtual time. */
  override sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.wait(ms, resolve, undefined));
  }

  /**
   * Runs `fn(arg)` after `ms` of virtual time, counted among the sleeps until then: `fn` wakes waiting code (it
   * resolves or settles a promise), so its continuations get their turn before time moves on. A sleep without a
   * promise of its own (a request in flight holds one promise for both of its legs).
   */
  wait<A>(ms: number, fn: (arg: A) => void, arg: A): void {
    this.sleeping++;
    this.schedule(this.t + ms, fn, arg, true);
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
    if (top.at > this.t) this.t = top.at;
    if (top.everyMs > 0) {
      // The same timer goes back in, a period later (after the others due at that instant).
      top.at += top.everyMs;
      top.seq = this.seq++;
      this.push(top);
      top.fn(top.arg);
      return false;
    }
    const { fn, arg, wakes } = top;
    top.fn = NO_TIMER_FN;
    top.arg = undefined;
    this.spare.push(top);
    // A sleep is over: one fewer sleeping, its waiter woken.
    if (wakes) this.sleeping--;
    fn(arg);
    return wakes;
  }
}

const NO_TIMER_FN = (): void => undefined;

/** A virtual clock's timer handle: canceled, it does nothing when its time comes. */
class VirtualTimer implements ClockTimer {
  canceled = false;
  constructor(readonly fn: () => void) {}
  cancel(): void {
    this.canceled = true;
  }
}

function runVirtualTimer(timer: VirtualTimer): void {
  if (!timer.canceled) timer.fn();
}

function before(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
