// The backtest's streams: handlers called in the order they subscribed, unsubscribing stops them, a throwing handler
// neither stops the others nor reaches the caller of next() (it is reported as RxJS reports it), and the stream is
// an Observable for operators and observer objects.
import { afterEach, describe, expect, it } from '@jest/globals';
import { config, filter, map } from 'rxjs';
import { DirectStream } from '../../../src/util/direct-stream.js';

describe('DirectStream', () => {
  afterEach(() => {
    config.onUnhandledError = null;
  });

  it('calls its handlers in subscription order, each value once, until unsubscribed', () => {
    const s = new DirectStream<number>();
    const seen: string[] = [];
    const a = s.subscribe((v) => seen.push(`a${v}`));
    s.subscribe((v) => seen.push(`b${v}`));
    s.next(1);
    a.unsubscribe();
    s.next(2);
    expect(seen).toEqual(['a1', 'b1', 'b2']);
  });

  it('a handler subscribed during next() takes the next value, not the one in progress', () => {
    const s = new DirectStream<number>();
    const seen: string[] = [];
    s.subscribe((v) => {
      seen.push(`a${v}`);
      if (v === 1) s.subscribe((w) => seen.push(`late${w}`));
    });
    s.next(1);
    s.next(2);
    expect(seen).toEqual(['a1', 'a2', 'late2']);
  });

  it('a throwing handler is reported, not thrown to next(), and the others still run', async () => {
    const s = new DirectStream<number>();
    const reported: unknown[] = [];
    config.onUnhandledError = (err) => reported.push(err);
    const seen: number[] = [];
    s.subscribe(() => {
      throw new Error('boom');
    });
    s.subscribe((v) => seen.push(v));
    expect(() => s.next(7)).not.toThrow();
    expect(seen).toEqual([7]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reported.map((e) => (e as Error).message)).toEqual(['boom']);
  });

  it('works as an Observable: operators, observer objects and their unsubscription', () => {
    const s = new DirectStream<number>();
    const piped: number[] = [];
    const objects: number[] = [];
    const sub = s
      .pipe(
        filter((v) => v % 2 === 0),
        map((v) => v * 10),
      )
      .subscribe((v) => piped.push(v));
    s.subscribe({ next: (v) => objects.push(v) });
    s.next(1);
    s.next(2);
    sub.unsubscribe();
    s.next(4);
    expect(piped).toEqual([20]);
    expect(objects).toEqual([1, 2, 4]);
  });
});
