// Polling: a timer and exhaustMap (a slow poll is never stacked), retries inside (a failed poll never kills
// the stream: the cycle is skipped), each value stamped with the time it was fetched.
import { EMPTY, catchError, defer, exhaustMap, filter, map, retry, timer, type MonoTypeOperatorFunction, type Observable, type ObservableInput, type SchedulerLike } from 'rxjs';
import type { TimeSource } from '../util/clock.js';

export interface Stamped<T> {
  value: T;
  /** When the value was fetched (ms); its age is now − atMs. */
  atMs: number;
  /** Which poll cycle fetched it, counted per stream (a poll stamps it; a wall clock stepped back cannot reorder it). */
  seq?: number;
}

export interface PollOptions {
  periodMs: number;
  /** Retries of one cycle before it is skipped, and the first backoff (doubled each time). */
  retries: number;
  retryDelayMs: number;
  clock: TimeSource;
  scheduler?: SchedulerLike;
  /** Only errors this says yes to are retried (others skip the cycle at once). */
  retryable?: (err: unknown) => boolean;
  onError?: (err: unknown) => void;
}

/**
 * Lets a value through only when its poll cycle is no older than the last one let through (each subscriber on its
 * own; by `seq`, else by `atMs`): an answer that arrives after a newer one (duplicated, or overtaken on the way) is
 * stale, and applying it would turn the account back to what it was.
 */
export function inOrder<T>(): MonoTypeOperatorFunction<Stamped<T>> {
  return (source) =>
    defer(() => {
      let last = Number.NEGATIVE_INFINITY;
      return source.pipe(
        filter((s) => {
          const at = s.seq ?? s.atMs;
          if (at < last) return false;
          last = at;
          return true;
        }),
      );
    });
}

export function poll<T>(fetch: () => ObservableInput<T>, opts: PollOptions): Observable<Stamped<T>> {
  const retryable = opts.retryable ?? (() => true);
  return timer(0, opts.periodMs, opts.scheduler).pipe(
    exhaustMap((seq) =>
      defer(fetch).pipe(
        retry({
          count: opts.retries,
          delay: (err: unknown, attempt: number) => {
            if (!retryable(err)) throw err;
            return timer(opts.retryDelayMs * 2 ** (attempt - 1), opts.scheduler);
          },
        }),
        map((value) => ({ value, atMs: opts.clock.now(), seq })),
        catchError((err: unknown) => {
          opts.onError?.(err);
          return EMPTY;
        }),
      ),
    ),
  );
}
