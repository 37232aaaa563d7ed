// Dollar-cost averaging on spot: buys a fixed quote amount at market on a cron schedule.
import { Decimal, defineStrategy, roundSize, z } from 'sextant/strategy';

export default defineStrategy({
  name: 'spot-dca',
  description: 'Buys `quoteAmount` worth of the base currency at market each time its `buy` schedule fires.',
  params: z.strictObject({
    /** Quote currency spent per purchase. */
    quoteAmount: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .default('50'),
    /** Skip a purchase when the last price is above this (optional ceiling). */
    maxPrice: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .optional(),
  }),

  onMarket(ctx, u) {
    const t = u.tickers.get(ctx.symbols[0]!);
    if (t?.last) ctx.state.last = t.last.toString();
  },

  onSchedule: {
    buy(ctx) {
      const symbol = ctx.symbols[0]!;
      const inst = ctx.instruments.get(symbol);
      if (!inst || typeof ctx.state.last !== 'string') return;
      const last = Decimal.from(ctx.state.last);
      if (ctx.params.maxPrice && last.gt(Decimal.from(ctx.params.maxPrice))) {
        ctx.log.info('price above the ceiling: purchase skipped', { last: last.toString() });
        return;
      }
      const size = roundSize(Decimal.from(ctx.params.quoteAmount).div(last, 12), inst);
      if (size.lt(inst.minSize)) {
        ctx.log.warn('quote amount buys less than the minimum size', { size: size.toString() });
        return;
      }
      return [{ kind: 'place', surface: 'spot', symbol, orders: [{ side: 'buy', kind: 'market', timeInForce: 'ioc', size }] }];
    },
  },
});
