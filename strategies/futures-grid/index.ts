// A long futures grid: buy orders on levels below a centre price, a reduce-only take-profit one step above the
// average entry, and a stop-loss trigger order below the lowest level, all kept as targets (diffed each update).
import { Decimal, defineStrategy, diffTargets, roundPrice, roundSize, z, type OrderSpec, type StrategyIntent } from 'sextant/strategy';

export default defineStrategy({
  name: 'futures-grid',
  description: 'Long grid: bids on levels under a centre, a take-profit above the entry, a stop-loss trigger below the grid.',
  params: z.strictObject({
    levels: z.number().int().min(1).max(20).default(5),
    /** Distance between levels, in basis points of the centre. */
    stepBps: z.number().int().min(1).max(1000).default(20),
    /** Size per level (base currency). */
    size: z.string().regex(/^\d+(\.\d+)?$/).default('0.01'),
    /** The stop-loss trigger sits this many steps below the lowest level. */
    stopLossSteps: z.number().int().min(1).max(20).default(2),
  }),

  onMarket(ctx, u) {
    const symbol = ctx.symbols[0]!;
    const inst = ctx.instruments.get(symbol);
    const last = u.tickers.get(symbol)?.last;
    if (!inst || !last) return;
    if (typeof ctx.state.centre !== 'string') ctx.state.centre = last.toString();
    const centre = Decimal.from(ctx.state.centre as string);
    const step = Decimal.fromInt(ctx.params.stepBps).div(Decimal.fromInt(10_000), 12);
    const one = Decimal.fromInt(1);
    const size = roundSize(Decimal.from(ctx.params.size), inst);
    const long = u.positions.find((p) => p.symbol === symbol && p.side === 'long');
    const held = long ? long.size : Decimal.ZERO;
    const filledLevels = held.steps(size, 'down');

    const targets: OrderSpec[] = [];
    // Bids on the levels not yet filled (the highest filled first, as the price falls).
    for (let k = filledLevels + 1; k <= ctx.params.levels; k++) {
      const price = roundPrice(centre.mul(one.sub(step.mul(Decimal.fromInt(k)))), inst, 'down');
      if (price.lt(last)) targets.push({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size, positionSide: 'long' });
    }
    // Take profit on everything held, one step above the average entry.
    if (long?.entryPrice && held.gt(Decimal.ZERO)) {
      const tp = roundPrice(long.entryPrice.mul(one.add(step)), inst, 'up');
      targets.push({ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: tp.gt(last) ? tp : roundPrice(last.mul(one.add(step)), inst, 'up'), size: held, positionSide: 'long', reduceOnly: true });
    }
    // Resting and still-unanswered orders both count (an order not yet listed must not be placed twice); the
    // stop-loss trigger is kept apart.
    const open = u.openOrders.filter((o) => o.symbol === symbol && o.status !== 'untriggered' && o.status !== 'canceling');
    const { cancel, place } = diffTargets(targets, open);
    const out: StrategyIntent[] = [];
    // By client id: an order not answered yet has no venue id, and every order a strategy sees carries its client id.
    if (cancel.length) out.push({ kind: 'cancel', surface: 'futures', symbol, clientOids: cancel.map((o) => o.clientOid!) });
    if (place.length) out.push({ kind: 'place', surface: 'futures', symbol, orders: place });

    // A stop-loss placed but not answered yet: adopted once the trigger shows among our orders; one that never
    // shows (denied, refused) is placed again after a while, so a position is never left without its stop.
    if (ctx.state.stopLoss === 'pending') {
      const trigger = u.openOrders.find((o) => o.symbol === symbol && o.status === 'untriggered' && o.orderId !== '');
      if (trigger) ctx.state.stopLoss = trigger.orderId;
      else if (typeof ctx.state.stopLossAt === 'number' && u.nowMs - ctx.state.stopLossAt > 30_000 && !u.openOrders.some((o) => o.symbol === symbol && o.status === 'untriggered')) delete ctx.state.stopLoss;
    }
    // One stop-loss trigger while anything is held; it is placed once and cancelled when flat.
    if (held.gt(Decimal.ZERO) && !ctx.state.stopLoss) {
      const sl = roundPrice(centre.mul(one.sub(step.mul(Decimal.fromInt(ctx.params.levels + ctx.params.stopLossSteps)))), inst, 'down');
      out.push({ kind: 'place-trigger', symbol, positionSide: 'long', reduceOnly: true, size: size.mul(Decimal.fromInt(ctx.params.levels)), triggerPrice: sl });
      ctx.state.stopLoss = 'pending';
      ctx.state.stopLossAt = u.nowMs;
    } else if (held.isZero() && typeof ctx.state.stopLoss === 'string' && ctx.state.stopLoss !== 'pending') {
      out.push({ kind: 'cancel-trigger', symbol, orderId: ctx.state.stopLoss });
      delete ctx.state.stopLoss;
    }
    return out;
  },

  onEvent(ctx, e) {
    // The stop-loss trigger's id arrives with its acceptance.
    if (ctx.state.stopLoss === 'pending' && e.type === 'accepted' && e.trigger) {
      ctx.state.stopLoss = e.orderId;
      ctx.state.stopLossClientOid = e.clientOid;
    }
  },
});
