// The report's ISO time text is Date.toISOString's, to the character, across days, years and the edges (as a string
// and written into a buffer).
import { describe, expect, it } from '@jest/globals';
import { isoTime, putIsoTime } from '../../../src/report/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes', () => {
    const times = [
      0,
      1,
      999,
      1000,
      59_999,
      86_399_999,
      86_400_000,
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2026, 0, 1),
      253_402_300_799_999,
      253_402_300_800_000,
      -1,
      -86_400_001,
    ];
    let x = 12345;
    for (let i = 0; i < 2000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      times.push(Date.UTC(2020, 0, 1) + x * 977 + (i % 7) * 86_400_000);
    }
    const buf = Buffer.alloc(40);
    for (const ms of times) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      expect(buf.toString('latin1', 3, putIsoTime(buf, 3, ms))).toBe(new Date(ms).toISOString());
    }
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
