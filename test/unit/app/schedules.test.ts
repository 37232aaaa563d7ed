// Schedules through the clock: jobs fire at their cron instants in virtual time (the same instants live), a job
// that fails is logged and keeps its schedule, a job going on in promises is told, stop cancels every timer.
import { describe, expect, it } from '@jest/globals';
import { Schedules, cronInstants } from '../../../src/app/cron.js';
import { VirtualClock } from '../../../src/util/clock.js';
import { silentLogger, type Logger } from '../../../src/util/logger.js';

const START = Date.parse('2026-03-01T00:00:00.500Z');

function run(clock: VirtualClock, untilMs: number): void {
  while (clock.nextAt() <= untilMs) clock.runNext();
}

describe('Schedules', () => {
  it("fires each job at the instants its expression names, from the clock's now", () => {
    const clock = new VirtualClock(START);
    const schedules = new Schedules(clock, silentLogger);
    const every5: number[] = [];
    const minutely: number[] = [];
    schedules.add('five', '*/5 * * * * *', () => void every5.push(clock.now()));
    schedules.add('minute', '0 * * * * *', () => void minutely.push(clock.now()));
    run(clock, START + 120_000);
    const next = cronInstants('*/5 * * * * *');
    const expected: number[] = [];
    for (let t = next(START); t !== null && t <= START + 120_000; t = next(t)) expected.push(t);
    expect(every5).toEqual(expected);
    expect(every5[0]).toBe(Date.parse('2026-03-01T00:00:05Z'));
    expect(minutely).toEqual([Date.parse('2026-03-01T00:01:00Z'), Date.parse('2026-03-01T00:02:00Z')]);
  });

  it('a failing job is logged and fires again; an async job is told; stop cancels', async () => {
    const clock = new VirtualClock(START);
    const warnings: unknown[] = [];
    const logger = { ...silentLogger, warn: (fields: unknown) => void warnings.push(fields) } as unknown as Logger;
    let asyncJobs = 0;
    const schedules = new Schedules(clock, logger, () => asyncJobs++);
    let fails = 0;
    let rejects = 0;
    schedules.add('fails', '* * * * * *', () => {
      fails++;
      throw new Error('boom');
    });
    schedules.add('rejects', '* * * * * *', async () => {
      rejects++;
      throw new Error('later');
    });
    run(clock, START + 3000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fails).toBe(3);
    expect(rejects).toBe(3);
    expect(asyncJobs).toBe(3);
    expect(warnings).toHaveLength(6);
    expect(warnings[0]).toEqual({ job: 'fails', err: 'boom' });
    schedules.stop();
    run(clock, START + 10_000);
    expect(fails).toBe(3);
  });

  it('refuses an expression node-cron refuses, naming the job', () => {
    const schedules = new Schedules(new VirtualClock(START), silentLogger);
    expect(() => schedules.add('bad', '61 * * * * *', () => undefined)).toThrow(/^bad: invalid cron expression/);
  });
});
