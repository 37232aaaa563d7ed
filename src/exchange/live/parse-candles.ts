// Candle rows (S10, F10, F11) -> domain candles, oldest first: the venue sends them newest first, spot with a JSON
// number for the open time and futures with seven strings. Prices must be known and above zero, volumes known.
import type { VenueCandle } from '../../domain/candles.js';
import type { WireCandleRow } from '../wire/responses.js';
import type { ParseContext } from './parse-context.js';
import { nonNegative } from './parse-market.js';

/** One row; `path` locates it in the answer (`data[3]`, `[3]`). */
export function candle(ctx: ParseContext, row: WireCandleRow, path: string): VenueCandle {
  const [openMs, open, high, low, close, baseVolume, quoteVolume] = row;
  const out: VenueCandle = {
    openMs: ctx.time(openMs) ?? ctx.fail(`${path}[0]`, `not a millisecond timestamp: ${JSON.stringify(openMs)}`),
    open: ctx.positive(`${path}[1]`, open),
    high: ctx.positive(`${path}[2]`, high),
    low: ctx.positive(`${path}[3]`, low),
    close: ctx.positive(`${path}[4]`, close),
    baseVolume: nonNegative(ctx, `${path}[5]`, baseVolume),
    quoteVolume: nonNegative(ctx, `${path}[6]`, quoteVolume),
  };
  if (out.low.gt(out.open) || out.low.gt(out.close) || out.high.lt(out.open) || out.high.lt(out.close)) {
    ctx.report(path, row.slice(0, 5), 'candle whose high and low do not hold its open and close');
  }
  return out;
}

/** Every row of an answer (`prefix` "data" for spot, "" for futures), oldest first, one per open time. */
export function candles(ctx: ParseContext, rows: readonly WireCandleRow[], prefix: string): VenueCandle[] {
  const byOpen = new Map<number, VenueCandle>();
  rows.forEach((row, i) => {
    const c = candle(ctx, row, `${prefix}[${i}]`);
    if (byOpen.has(c.openMs)) ctx.report(`${prefix}[${i}][0]`, c.openMs, 'a second candle with the same open time: the first kept');
    else byOpen.set(c.openMs, c);
  });
  return [...byOpen.values()].sort((a, b) => a.openMs - b.openMs);
}
