// EMA cross on futures bars: long above, short below, each with an ATR stop (a trigger order) sized from its risk.
import { ATR, Decimal, EMA, TIMEFRAMES, defineStrategy, priceFromFloat, sizeFromRisk, z, type StrategyIntent } from 'sextant/strategy';

export default defineStrategy({
  name: 'ema-cross',
  description: 'Long on a fast-over-slow EMA cross, short on the reverse; an ATR stop as a trigger order, sized from the risk to it.',
  params: z
    .strictObject({
      timeframe: z.enum(TIMEFRAMES).default('1m'), // list it in the instance's `timeframes` when not 1m
      fast: z.number().int().min(2).default(9),
      slow: z.number().int().min(3).default(21),
      atrPeriod: z.number().int().min(2).default(14),
      atrStop: z.number().gt(0).max(50).default(2),
      riskQuote: z
        .string()
        .regex(/^\d+(\.\d+)?$/)
        .default('10'), // lost at the stop, fees aside
      entry: z.enum(['market', 'limit']).default('market'), // limit: IOC at the touch, never beyond it
    })
    .refine((p) => p.fast < p.slow, { message: 'fast must be shorter than slow' }),
  timeframes: ['1m'],
  lookback: (p) => Math.max(p.slow, p.atrPeriod) * 5,

  onBar(ctx, bar, u) {
    const { symbol } = bar;
    if (bar.timeframe !== ctx.params.timeframe) return;
    const series = ctx.bars(symbol, bar.timeframe);
    const [closes, highs, lows] = [series.closes(), series.highs(), series.lows()];
    const fast = new EMA(ctx.params.fast).updates(closes);
    const slow = new EMA(ctx.params.slow).updates(closes);
    const range = new ATR(ctx.params.atrPeriod).updates(closes.map((close, i) => ({ high: highs[i]!, low: lows[i]!, close }))).at(-1);
    const [was, now] = [-2, -1].map((i) => Math.sign(fast.at(i)! - slow.at(i)!)) as [number, number]; // the bar before and this one: 1 fast above slow, -1 below
    if (closes.length <= ctx.params.slow || !range || now === 0 || now === was) return;
    const [side, other, buy] = now === 1 ? (['long', 'short', 'buy'] as const) : (['short', 'long', 'sell'] as const);
    const inst = ctx.instruments.get(symbol)!;
    const held = ctx.inventory(symbol)[other]!.size.abs();
    const stops = u.openOrders.filter((o) => o.symbol === symbol && o.status === 'untriggered' && o.positionSide === other && o.orderId !== '');
    const out: StrategyIntent[] = stops.map((o) => ({ kind: 'cancel-trigger', symbol, orderId: o.orderId }));
    if (!held.isZero())
      out.push({
        kind: 'place',
        surface: 'futures',
        symbol,
        orders: [{ side: buy, kind: 'market', timeInForce: 'ioc', size: held, positionSide: other, reduceOnly: true }],
      });
    const stop = priceFromFloat(bar.close.toNumber() - now * ctx.params.atrStop * range, inst, now === 1 ? 'down' : 'up');
    const size = sizeFromRisk(Decimal.from(ctx.params.riskQuote), bar.close, stop, inst);
    if (!size) return out;
    const touch = (now === 1 ? u.tickers.get(symbol)?.bestAsk : u.tickers.get(symbol)?.bestBid) ?? bar.close;
    out.push({
      kind: 'place',
      surface: 'futures',
      symbol,
      orders: [{ side: buy, kind: ctx.params.entry, ...(ctx.params.entry === 'limit' ? { price: touch } : {}), timeInForce: 'ioc', size, positionSide: side }],
    });
    return [...out, { kind: 'place-trigger', symbol, positionSide: side, reduceOnly: true, size, triggerPrice: stop }];
  },
});
