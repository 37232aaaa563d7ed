// OHLCV CSV import into the replay format, with a documented intrabar path.
import { readFileSync } from 'node:fs';
import { Decimal } from '../domain/decimal.js';
import type { ReplayRecord } from '../domain/replay-record.js';

export class DataFileError extends Error {}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time (`T` or a space between them) in ms. A time without a zone is UTC, as the date
 * alone is: never the machine's local time (Date.parse reads `2026-01-05 00:00:00` in the local zone).
 */
function isoMs(text: string): number | undefined {
  const m = ISO.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
  const ms = Date.UTC(...fields, Number(frac.padEnd(3, '0').slice(0, 3)));
  // Date.UTC rolls over (month 13, February 30, hour 25): such a date is refused, not moved.
  const back = new Date(ms);
  if (back.getUTCFullYear() !== fields[0] || back.getUTCMonth() !== fields[1] || back.getUTCDate() !== fields[2] || back.getUTCHours() !== fields[3] || back.getUTCMinutes() !== fields[4] || back.getUTCSeconds() !== fields[5]) return undefined;
  if (zone.toUpperCase() === 'Z') return ms;
  const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const offsetMin = Number(z[2]) * 60 + Number(z[3] ?? '0');
  if (offsetMin >= 24 * 60) return undefined;
  return ms - (z[1] === '-' ? -1 : 1) * offsetMin * 60_000;
}

/**
 * Reads `timestamp,open,high,low,close,volume` rows (a header row is optional; timestamps in ms, s or ISO 8601,
 * UTC unless they name their zone) and turns each bar into four ticks: open, then the extreme the bar went to
 * first, then the other, then close.
 * A bar that closes up is taken to have gone down first (open, low, high, close); one that closes down, up
 * first (open, high, low, close). The ticks sit at 0, ¼, ½ and ¾ of the bar, each with a quarter of its volume.
 */
export function importOhlcvCsv(file: string, symbol: string): ReplayRecord[] {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const bars: Array<{ ts: number; o: Decimal; h: Decimal; l: Decimal; c: Decimal; v: Decimal; line: number }> = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const cols = text.split(',').map((c) => c.trim());
    if (i === 0 && !/^\d/.test(cols[0] ?? '')) return; // header
    const at = (col: number, what: string) => `${file}:${i + 1}:${text.split(',').slice(0, col).join(',').length + (col > 0 ? 2 : 1)}: ${what}`;
    if (cols.length < 6) throw new DataFileError(at(0, `expected 6 columns (timestamp,open,high,low,close,volume), got ${cols.length}`));
    const raw = cols[0]!;
    const ts = /^\d{13}$/.test(raw) ? Number(raw) : /^\d{10}$/.test(raw) ? Number(raw) * 1000 : isoMs(raw);
    if (ts === undefined || !Number.isFinite(ts)) throw new DataFileError(at(0, `timestamp ${JSON.stringify(raw)} is not ms, s or ISO`));
    const num = (col: number, name: string) => {
      const d = Decimal.parse(cols[col]!);
      if (!d || d.isNegative()) throw new DataFileError(at(col, `${name} ${JSON.stringify(cols[col])} is not a non-negative decimal`));
      return d;
    };
    const [o, h, l, c, v] = [num(1, 'open'), num(2, 'high'), num(3, 'low'), num(4, 'close'), num(5, 'volume')];
    if (h.lt(o) || h.lt(c) || h.lt(l) || l.gt(o) || l.gt(c)) throw new DataFileError(at(2, 'high and low do not bound open and close'));
    const prev = bars[bars.length - 1];
    if (prev && ts <= prev.ts) throw new DataFileError(at(0, 'timestamps must increase'));
    bars.push({ ts, o, h, l, c, v, line: i + 1 });
  });
  if (bars.length === 0) throw new DataFileError(`${file}: no rows`);
  const out: ReplayRecord[] = [];
  bars.forEach((b, k) => {
    const next = bars[k + 1];
    const span = next ? next.ts - b.ts : k > 0 ? b.ts - bars[k - 1]!.ts : 60_000;
    const path = b.c.gte(b.o) ? [b.o, b.l, b.h, b.c] : [b.o, b.h, b.l, b.c];
    const size = b.v.div(Decimal.fromInt(4), 12);
    path.forEach((p, j) => out.push({ ts: b.ts + Math.floor((span * j) / 4), symbol, price: p.toString(), size: size.isZero() ? '0.000001' : size.toString() }));
  });
  return out;
}
