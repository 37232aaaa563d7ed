// Benchmark strategy: watches the price and never trades (a breakout monitor: compares each last price with
// the highest seen so far, exactly). Measures the pipeline's cost per market event without orders.
import { Decimal, defineStrategy, z } from 'sextant/strategy';

// Highest price per instance (a Decimal: kept here rather than in the JSON-only state).
const highs = new Map<string, Decimal>();

export default defineStrategy({
  name: 'bench-watch',
  params: z.strictObject({}),
  onMarket(ctx, u) {
    const last = u.tickers.get(ctx.symbols[0]!)?.last;
    if (!last) return;
    const high = highs.get(ctx.id);
    if (!high || last.gt(high)) highs.set(ctx.id, last);
  },
});
