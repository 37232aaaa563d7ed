// RSI mean reversion on spot bars: buys at the bid when oversold and flat, sells what it holds at the ask once recovered.
import { Decimal, RSI, TIMEFRAMES, defineStrategy, equityOf, roundPrice, roundSize, sizeFromEquity, sizeFromQuote, z } from 'sextant/strategy';

export default defineStrategy({
  name: 'rsi-reversion',
  description: 'Buys when the RSI of closed bars is oversold and it holds nothing; sells its holding once the RSI recovers.',
  params: z
    .strictObject({
      timeframe: z.enum(TIMEFRAMES).default('1m'), // list it in the instance's `timeframes` when not 1m
      period: z.number().int().min(2).max(500).default(14),
      buyBelow: z.number().min(0).max(100).default(30),
      sellAbove: z.number().min(0).max(100).default(50),
      quoteAmount: z
        .string()
        .regex(/^\d+(\.\d+)?$/)
        .default('1000'), // spent on each buy, unless equityPct is set
      equityPct: z.number().gt(0).max(100).optional(), // each buy: this % of the account's spot equity
    })
    .refine((p) => p.buyBelow < p.sellAbove, { message: 'buyBelow must be below sellAbove' }),
  timeframes: ['1m'],
  lookback: (p) => p.period * 10,

  onBar(ctx, bar, u) {
    const { symbol } = bar;
    if (bar.timeframe !== ctx.params.timeframe) return;
    // An order left open a bar is cancelled; nothing new until the cancel is through.
    const open = u.openOrders.filter((o) => o.symbol === symbol);
    const stale = open.filter((o) => o.status !== 'canceling');
    if (stale.length) return [{ kind: 'cancel', surface: 'spot', symbol, clientOids: stale.map((o) => o.clientOid!) }];
    const rsi = new RSI(ctx.params.period).updates(ctx.bars(symbol, bar.timeframe).closes()).at(-1);
    const inst = ctx.instruments.get(symbol)!;
    const held = roundSize(ctx.inventory(symbol).size, inst);
    if (open.length || rsi == null) return;
    if (rsi < ctx.params.buyBelow && held.lt(inst.minSize)) {
      const price = roundPrice(u.tickers.get(symbol)?.bestBid ?? bar.close, inst, 'down');
      const pct = ctx.params.equityPct;
      const size =
        pct === undefined
          ? sizeFromQuote(Decimal.from(ctx.params.quoteAmount), price, inst)
          : sizeFromEquity(equityOf(u, ctx.instruments, 'spot') ?? Decimal.ZERO, pct, price, inst);
      if (size) return [{ kind: 'place', surface: 'spot', symbol, orders: [{ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size }] }];
    } else if (rsi > ctx.params.sellAbove && held.gte(inst.minSize)) {
      const price = roundPrice(u.tickers.get(symbol)?.bestAsk ?? bar.close, inst, 'up');
      return [{ kind: 'place', surface: 'spot', symbol, orders: [{ side: 'sell', kind: 'limit', timeInForce: 'gtc', price, size: held }] }];
    }
  },
});
