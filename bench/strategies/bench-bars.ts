// Benchmark strategy: one indicator on 1-minute bars (a 14-period RSI of the closes), never trades. Measures the
// pipeline's cost per market event with bars built and an indicator read.
import { RSI, defineStrategy, z } from 'sextant/strategy';

const rsi = new Map<string, RSI>();
/** The stable readings taken: the indicator's result is used, so the benchmark measures reading it. */
export const tally = { readings: 0 };

export default defineStrategy({
  name: 'bench-bars',
  params: z.strictObject({}),
  timeframes: ['1m'],
  lookback: 50,
  onBar(ctx, bar) {
    let r = rsi.get(ctx.id);
    if (!r) rsi.set(ctx.id, (r = new RSI(14)));
    r.add(bar.close.toNumber());
    if (r.isStable && r.getResult() !== null) tally.readings++;
  },
  onStart() {
    tally.readings = 0;
  },
});
