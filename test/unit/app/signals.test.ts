// waitForStop: the first stop signal or the time limit (on the clock given) ends the wait; SIGHUP goes to its handler.
import { afterEach, describe, expect, it } from '@jest/globals';
import { waitForStop } from '../../../src/app/signals.js';
import { ManualClock } from '../../../src/util/clock.js';

const counts = () => ({ term: process.listenerCount('SIGTERM'), int: process.listenerCount('SIGINT'), hup: process.listenerCount('SIGHUP') });
const before = counts();

afterEach(() => {
  // Listeners a wait leaves behind (each stop signal is taken once): used up here so none outlives its test.
  while (process.listenerCount('SIGTERM') > before.term) process.emit('SIGTERM');
  while (process.listenerCount('SIGINT') > before.int) process.emit('SIGINT');
});

describe('waitForStop', () => {
  it('resolves with the first stop signal; the other one then does nothing', async () => {
    const stopped = waitForStop();
    process.emit('SIGINT');
    expect(await stopped).toBe('SIGINT');
    expect(counts()).toEqual({ ...before, term: before.term + 1 });
    process.emit('SIGTERM');
    expect(counts()).toEqual(before);
  });

  it('resolves with "timeout" when the clock passes the limit, and not before', async () => {
    const clock = new ManualClock(1_000);
    let result: string | undefined;
    void waitForStop({ timeout: { afterMs: 1_500, clock } }).then((r) => (result = r));
    clock.advance(1_499);
    await Promise.resolve();
    expect(result).toBeUndefined();
    clock.advance(1);
    await Promise.resolve();
    expect(result).toBe('timeout');
  });

  it('a signal before the limit wins', async () => {
    const clock = new ManualClock(0);
    const stopped = waitForStop({ timeout: { afterMs: 10, clock } });
    process.emit('SIGTERM');
    clock.advance(10);
    expect(await stopped).toBe('SIGTERM');
  });

  it('calls the SIGHUP handler on every SIGHUP while it waits', async () => {
    let hangups = 0;
    const onHangup = () => void hangups++;
    const stopped = waitForStop({ onHangup });
    process.emit('SIGHUP');
    process.emit('SIGHUP');
    expect(hangups).toBe(2);
    process.emit('SIGTERM');
    expect(await stopped).toBe('SIGTERM');
    process.removeListener('SIGHUP', onHangup);
  });
});
