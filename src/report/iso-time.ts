// Times as ISO text (Date.toISOString's exact output) for reports that write one per trade: the day's part is worked
// out once per day, the time of day with integer arithmetic (toISOString costs about half a microsecond a call); as a
// string, or written straight into a buffer.

import { putDigits, putText } from './byte-text.js';

const DAY_MS = 86_400_000;
/** The first millisecond of year 10000: from there (and before 1970) toISOString writes the extended year form. */
const END_MS = 253_402_300_800_000;

let cachedDay = Number.NaN;
let cachedPrefix = '';
/** The same prefix as bytes. */
const prefixBytes = Buffer.alloc(11);

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/** new Date(ms).toISOString(), the same text (and the same RangeError for a time that is not one). */
export function isoTime(ms: number): string {
  if (!(ms >= 0 && ms < END_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) {
    cachedDay = day;
    cachedPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    prefixBytes.write(cachedPrefix, 'latin1');
  }
  let rest = ms - day * DAY_MS;
  const milli = rest % 1000;
  rest = (rest - milli) / 1000;
  const second = rest % 60;
  rest = (rest - second) / 60;
  const minute = rest % 60;
  const hour = (rest - minute) / 60;
  return `${cachedPrefix}${two(hour)}:${two(minute)}:${two(second)}.${three(milli)}Z`;
}

/** isoTime(ms), written into `buf` at `at`; the offset after it. */
export function putIsoTime(buf: Buffer, at: number, ms: number): number {
  if (!(ms >= 0 && ms < END_MS) || !Number.isInteger(ms)) return putText(buf, at, new Date(ms).toISOString());
  const day = Math.floor(ms / DAY_MS);
  if (day !== cachedDay) isoTime(ms);
  for (let i = 0; i < 11; i++) buf[at++] = prefixBytes[i]!;
  // Within a day: small integers.
  let rest = (ms - day * DAY_MS) | 0;
  const milli = rest % 1000;
  rest = ((rest - milli) / 1000) | 0;
  const second = rest % 60;
  rest = ((rest - second) / 60) | 0;
  const minute = rest % 60;
  at = putDigits(buf, at, ((rest - minute) / 60) | 0, 2);
  buf[at++] = 58;
  at = putDigits(buf, at, minute, 2);
  buf[at++] = 58;
  at = putDigits(buf, at, second, 2);
  buf[at++] = 46;
  at = putDigits(buf, at, milli, 3);
  buf[at++] = 90;
  return at;
}
