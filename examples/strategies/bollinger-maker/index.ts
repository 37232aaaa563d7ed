// Bollinger-band market making on spot bars: post-only quotes on the bands, passive, leaning on what it holds.
import {
  BollingerBands,
  Decimal,
  TIMEFRAMES,
  defineStrategy,
  diffTargets,
  priceFromFloat,
  roundSize,
  z,
  type OrderSpec,
  type StrategyIntent,
} from 'sextant/strategy';

export default defineStrategy({
  name: 'bollinger-maker',
  description: 'Post-only quotes on the Bollinger bands of closed bars, re-quoted each bar, within an inventory limit.',
  params: z.strictObject({
    timeframe: z.enum(TIMEFRAMES).default('1m'), // list it in the instance's `timeframes` when not 1m
    period: z.number().int().min(2).max(500).default(20),
    deviations: z.number().gt(0).max(10).default(2),
    size: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .default('0.01'), // of each quote, base currency
    maxInventory: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .default('0.03'), // base currency, bought or sold since the start
  }),
  timeframes: ['1m'],
  lookback: (p) => p.period,

  onBar(ctx, bar, u) {
    const { symbol } = bar;
    if (bar.timeframe !== ctx.params.timeframe) return;
    const band = new BollingerBands(ctx.params.period, ctx.params.deviations).updates(ctx.bars(symbol, bar.timeframe).closes()).at(-1);
    if (!band) return;
    const inst = ctx.instruments.get(symbol)!;
    const held = ctx.inventory(symbol).size;
    const max = Decimal.from(ctx.params.maxInventory);
    const size = roundSize(Decimal.from(ctx.params.size), inst);
    // Post-only: a bid at or above the best ask (an ask at or below the best bid) would take, and is refused.
    const bidCap = (u.tickers.get(symbol)?.bestAsk ?? bar.close).sub(inst.tickSize);
    const askFloor = (u.tickers.get(symbol)?.bestBid ?? bar.close).add(inst.tickSize);
    // Holding some, it sells back at the mean (short, it buys back there); at maxInventory the side adding to it goes.
    const bid = priceFromFloat(held.isNegative() ? band.middle : band.lower, inst, 'down');
    const ask = priceFromFloat(held.gt(Decimal.ZERO) ? band.middle : band.upper, inst, 'up');
    const targets: OrderSpec[] = [];
    if (held.lt(max)) targets.push({ side: 'buy', kind: 'limit', timeInForce: 'post_only', price: bid.gt(bidCap) ? bidCap : bid, size });
    if (held.neg().lt(max)) targets.push({ side: 'sell', kind: 'limit', timeInForce: 'post_only', price: ask.lt(askFloor) ? askFloor : ask, size });
    const { cancel, place } = diffTargets(
      targets,
      u.openOrders.filter((o) => o.symbol === symbol && o.status !== 'canceling'),
    );
    const out: StrategyIntent[] = cancel.length ? [{ kind: 'cancel', surface: 'spot', symbol, clientOids: cancel.map((o) => o.clientOid!) }] : [];
    return place.length ? [...out, { kind: 'place', surface: 'spot', symbol, orders: place }] : out;
  },
});
