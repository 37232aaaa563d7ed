// Trend following on futures: a fast/slow moving-average cross opens a long at market, protected by a
// stop-loss and a take-profit trigger order; the opposite cross closes it and cancels the triggers.
import { Decimal, defineStrategy, roundPrice, roundSize, sma, z, type StrategyIntent } from 'sextant/strategy';

export default defineStrategy({
  name: 'trend-follower',
  description: 'Long on a fast-over-slow moving-average cross, with trigger-order stop-loss and take-profit.',
  params: z
    .strictObject({
      fast: z.number().int().min(2).default(10),
      slow: z.number().int().min(3).default(30),
      size: z
        .string()
        .regex(/^\d+(\.\d+)?$/)
        .default('0.01'),
      stopLossBps: z.number().int().min(1).max(5000).default(150),
      takeProfitBps: z.number().int().min(1).max(5000).default(300),
    })
    .refine((p) => p.fast < p.slow, { message: 'fast must be shorter than slow' }),

  onMarket(ctx, u) {
    const symbol = ctx.symbols[0]!;
    const inst = ctx.instruments.get(symbol);
    const last = u.tickers.get(symbol)?.last;
    if (!inst || !last) return;
    const prices = (ctx.state.prices as number[] | undefined) ?? [];
    prices.push(last.toNumber()); // indicators may use floats; prices sent out are exact
    if (prices.length > ctx.params.slow + 1) prices.shift();
    ctx.state.prices = prices;
    const fast = sma(prices, ctx.params.fast);
    const slow = sma(prices, ctx.params.slow);
    if (fast === null || slow === null) return;
    const above = fast > slow;
    const wasAbove = ctx.state.above as boolean | undefined;
    ctx.state.above = above;
    const long = u.positions.find((p) => p.symbol === symbol && p.side === 'long');
    const out: StrategyIntent[] = [];
    if (above && wasAbove === false && !long) {
      const size = roundSize(Decimal.from(ctx.params.size), inst);
      const bp = (n: number) => Decimal.fromInt(n).div(Decimal.fromInt(10_000), 12);
      const one = Decimal.fromInt(1);
      out.push({ kind: 'place', surface: 'futures', symbol, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size, positionSide: 'long' }] });
      out.push({
        kind: 'place-trigger',
        symbol,
        positionSide: 'long',
        reduceOnly: true,
        size,
        triggerPrice: roundPrice(last.mul(one.sub(bp(ctx.params.stopLossBps))), inst, 'down'),
      });
      out.push({
        kind: 'place-trigger',
        symbol,
        positionSide: 'long',
        reduceOnly: true,
        size,
        triggerPrice: roundPrice(last.mul(one.add(bp(ctx.params.takeProfitBps))), inst, 'up'),
      });
      ctx.state.triggers = [];
    } else if (!above && wasAbove === true && long) {
      out.push({
        kind: 'place',
        surface: 'futures',
        symbol,
        orders: [{ side: 'sell', kind: 'market', timeInForce: 'ioc', size: long.size, positionSide: 'long', reduceOnly: true }],
      });
      for (const id of (ctx.state.triggers as string[] | undefined) ?? []) out.push({ kind: 'cancel-trigger', symbol, orderId: id });
      ctx.state.triggers = [];
    }
    return out;
  },

  onEvent(ctx, e) {
    // Remember the trigger orders' ids, so the exit can cancel them.
    if (e.type === 'accepted' && e.trigger && Array.isArray(ctx.state.triggers)) (ctx.state.triggers as string[]).push(e.orderId);
  },
});
