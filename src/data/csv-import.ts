// OHLCV CSV import: bars read, checked and written as a candle file (data-file.ts), which a backtest replays along
// the documented intrabar path.
import { readFileSync } from 'node:fs';
import { TIMEFRAME_MS, TIMEFRAMES, type Timeframe } from '../domain/candles.js';
import { DataFileError, candleRow, checkedCandle, type CandleRow } from './data-file.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time (`T` or a space between them) in ms. A time without a zone is UTC, as the date
 * alone is: never the machine's local time (Date.parse reads `2026-01-05 00:00:00` in the local zone).
 */
export function isoMs(text: string): number | undefined {
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
 * UTC unless they name their zone) as candles of one symbol. Their timeframe is `timeframe`, or else the shortest
 * gap between two bars, which must be one of the timeframes; bars closer than it are refused. A backtest replays
 * each bar along the intrabar path of its timeframe (data-file.ts `candleTicks`).
 */
export function importOhlcvCsv(file: string, symbol: string, timeframe?: Timeframe): { timeframe: Timeframe; candles: CandleRow[] } {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const bars: Array<{ row: CandleRow; line: number }> = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const cols = text.split(',').map((c) => c.trim());
    if (i === 0 && !/^\d/.test(cols[0] ?? '')) return; // header
    const at = (col: number, what: string) => `${file}:${i + 1}:${text.split(',').slice(0, col).join(',').length + (col > 0 ? 2 : 1)}: ${what}`;
    if (cols.length < 6) throw new DataFileError(at(0, `expected 6 columns (timestamp,open,high,low,close,volume), got ${cols.length}`));
    const raw = cols[0]!;
    const ts = /^\d{13}$/.test(raw) ? Number(raw) : /^\d{10}$/.test(raw) ? Number(raw) * 1000 : isoMs(raw);
    if (ts === undefined || !Number.isFinite(ts)) throw new DataFileError(at(0, `timestamp ${JSON.stringify(raw)} is not ms, s or ISO`));
    const column = { open: 1, high: 2, low: 3, close: 4, volume: 5 } as const;
    const candle = checkedCandle({ open: cols[1]!, high: cols[2]!, low: cols[3]!, close: cols[4]!, volume: cols[5]! }, (field, what) => new DataFileError(at(column[field], what)));
    const prev = bars[bars.length - 1];
    if (prev && ts <= prev.row.ts) throw new DataFileError(at(0, 'timestamps must increase'));
    bars.push({ row: candleRow(symbol, ts, candle), line: i + 1 });
  });
  if (bars.length === 0) throw new DataFileError(`${file}: no rows`);
  let shortest: { gapMs: number; line: number } | undefined;
  for (let k = 1; k < bars.length; k++) {
    const gapMs = bars[k]!.row.ts - bars[k - 1]!.row.ts;
    if (!shortest || gapMs < shortest.gapMs) shortest = { gapMs, line: bars[k]!.line };
  }
  const tf = timeframe ?? TIMEFRAMES.find((t) => TIMEFRAME_MS[t] === shortest?.gapMs);
  if (!tf) {
    throw new DataFileError(shortest
      ? `${file}:${shortest.line}: bars ${shortest.gapMs / 1000} s apart, which is no timeframe (${TIMEFRAMES.join(', ')}): name the bars' timeframe`
      : `${file}: a single bar: name its timeframe`);
  }
  if (shortest && shortest.gapMs < TIMEFRAME_MS[tf]) throw new DataFileError(`${file}:${shortest.line}: bars ${shortest.gapMs / 1000} s apart: closer than their timeframe ${tf}`);
  return { timeframe: tf, candles: bars.map((b) => b.row) };
}
