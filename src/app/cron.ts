// Scheduled jobs on cron expressions (node-cron's parser and matcher, UTC), run through the clock: the same
// instants live and in backtests.
import { createTask, parse, validate, validateDetailed } from 'node-cron';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/**
 * Why node-cron refuses an expression (5 fields, or 6 with seconds first; UTC), or undefined when it takes it. The
 * reason comes from node-cron's own detailed check; `validate` (what scheduling uses) has the last word.
 */
export function cronProblem(expression: string): string | undefined {
  if (validate(expression)) return undefined;
  let reasons: string[] = [];
  try {
    reasons = validateDetailed(expression).errors.map((e) => e.message.replace(/ is a invalid /, ' is an invalid '));
  } catch (err) {
    reasons = [(err as Error).message];
  }
  const why = reasons.length ? reasons.join('; ') : 'not a cron expression';
  return `invalid cron expression ${JSON.stringify(expression)}: ${why} (fields: [second] minute hour day-of-month month day-of-week)`;
}

/** The longest a single clock timer waits: a later instant is reached by waiting again (Node's timers overflow at 2^31 ms). */
const MAX_WAIT_MS = 2 ** 30;

/**
 * Scheduled jobs (reconciliation, strategy schedules, housekeeping) on cron expressions, through the clock: wall
 * time live, virtual time in backtests, the same instants either way. A failing job is logged and keeps its
 * schedule.
 */
export class Schedules {
  private readonly timers = new Map<string, ClockTimer>();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** Told of every job run that goes on in promise continuations (a backtest settles them before time moves). */
    private readonly onAsyncJob?: () => void,
  ) {}

  add(name: string, expression: string, job: () => Promise<void> | void): void {
    const problem = cronProblem(expression);
    if (problem) throw new Error(`${name}: ${problem}`);
    const next = cronInstants(expression);
    const failed = (err: unknown) => this.logger.warn({ job: name, err: (err as Error).message }, 'scheduled job failed');
    // A job that must not overlap itself guards itself (a reconciliation joins the one running).
    const run = () => {
      let result: Promise<void> | void;
      try {
        result = job();
      } catch (err) {
        failed(err);
        return;
      }
      if (!result) return;
      this.onAsyncJob?.();
      result.catch(failed);
    };
    const arm = (atMs: number | null) => {
      if (atMs === null || this.stopped) return;
      const waitMs = atMs - this.clock.now();
      this.timers.set(
        name,
        this.clock.setTimer(
          () => {
            if (waitMs > MAX_WAIT_MS) return arm(atMs);
            run();
            // From the instant itself: a wall-clock timer may fire a little early, and the same instant must not come twice.
            arm(next(Math.max(atMs, this.clock.now())));
          },
          Math.min(Math.max(0, waitMs), MAX_WAIT_MS),
        ),
      );
    };
    arm(next(this.clock.now()));
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }
}

const DAY_MS = 86_400_000;

/**
 * A cron expression's firing instants (whole seconds, UTC): the returned function gives the first one after
 * `afterMs`, or null when none comes within eight years. The day is checked by the expression's own matcher,
 * the time of day found from its fields.
 */
export function cronInstants(expression: string): (afterMs: number) => number | null {
  const problem = cronProblem(expression);
  if (problem) throw new Error(problem);
  const f = parse(expression);
  const task = createTask(expression, () => undefined, { timezone: 'UTC' });
  // Only its matcher is used: out of node-cron's task registry (it never runs), or every call would stay there.
  void task.destroy();
  const months = new Set(f.month);
  // For each value of a field, the first allowed value at or above it (-1: none).
  const upFrom = (allowed: number[], size: number) => {
    const t = new Int8Array(size + 1).fill(-1);
    for (let x = size - 1; x >= 0; x--) t[x] = allowed.includes(x) ? x : t[x + 1]!;
    return t;
  };
  const H = upFrom(f.hour, 24);
  const M = upFrom(f.minute, 60);
  const S = upFrom(f.second, 60);
  const at = (h: number, m: number, s: number) => ((h * 60 + m) * 60 + s) * 1000;

  /** The first time of day (ms) at or after `fromMs` whose hour, minute and second are allowed. */
  const firstTimeOfDay = (fromMs: number): number | null => {
    const h0 = Math.floor(fromMs / 3_600_000);
    const m0 = Math.floor(fromMs / 60_000) % 60;
    const s0 = Math.floor(fromMs / 1000) % 60;
    const h = H[h0]!;
    if (h < 0) return null;
    if (h > h0) return at(h, M[0]!, S[0]!);
    const m = M[m0]!;
    if (m > m0) return at(h, m, S[0]!);
    if (m === m0 && S[s0]! >= 0) return at(h, m, S[s0]!);
    // Nothing left in this minute: the next allowed minute of this hour, or the next hour.
    const m1 = M[m0 + 1]!;
    if (m1 >= 0) return at(h, m1, S[0]!);
    const h1 = H[h0 + 1]!;
    return h1 >= 0 ? at(h1, M[0]!, S[0]!) : null;
  };

  // Whether a day matches (month, day of month, day of week) is the same all day long.
  let dayKey = Number.NaN;
  let dayMatches = false;
  return (afterMs: number) => {
    let cursor = Math.floor(afterMs / 1000) * 1000 + 1000;
    for (let days = 0; days < 366 * 8; days++) {
      const dayStart = Math.floor(cursor / DAY_MS) * DAY_MS;
      if (dayStart !== dayKey) {
        dayKey = dayStart;
        const first = firstTimeOfDay(0);
        dayMatches = first !== null && months.has(new Date(dayStart).getUTCMonth() + 1) && task.match(new Date(dayStart + first));
      }
      if (dayMatches) {
        const t = firstTimeOfDay(cursor - dayStart);
        if (t !== null) return dayStart + t;
      }
      cursor = dayStart + DAY_MS;
    }
    return null;
  };
}
