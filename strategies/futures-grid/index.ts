// A long futures grid: buy orders on levels below a centre price, reduce-only take-profits one step above the
// average entry for what is held, and a stop-loss trigger order below the lowest level, all kept as targets
// (diffed each update). Closes never exceed the position: a take-profit covers only what resting ones do not,
// and the stop-loss is sized to what is held.
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
    // A fill is seen at once (its order leaves our orders), the position it makes only at the next positions poll:
    // until that shows a change (or 15 s pass), nothing new is placed, so a filled level is not bought again and
    // a filled take-profit is not placed anew against a position that is no longer there. Cancels still go.
    if (typeof ctx.state.fillAtMs === 'number') {
      if (held.toString() !== ctx.state.heldAtFill || u.nowMs - ctx.state.fillAtMs > 15_000) {
        delete ctx.state.fillAtMs;
        delete ctx.state.heldAtFill;
      }
    }
    const settling = typeof ctx.state.fillAtMs === 'number';
    ctx.state.held = held.toString();

    const targets: OrderSpec[] = [];
    // Bids on the levels not yet filled (the highest filled first, as the price falls).
    for (let k = filledLevels + 1; k <= ctx.params.levels; k++) {
      const price = roundPrice(centre.mul(one.sub(step.mul(Decimal.fromInt(k)))), inst, 'down');
      if (price.lt(last)) targets.push({ side: 'buy', kind: 'limit', timeInForce: 'gtc', price, size, positionSide: 'long' });
    }
    // Resting and still-unanswered orders both count (an order not yet listed must not be placed twice); the
    // stop-loss trigger is kept apart.
    const open = u.openOrders.filter((o) => o.symbol === symbol && o.status !== 'untriggered' && o.status !== 'canceling');
    // Take profit on everything held. A take-profit resting stays as it is: moving it (cancel, place anew) would race
    // its own fills, and a close larger than the position is refused. What resting ones do not cover gets its own,
    // one step above the average entry. Flat, they are cancelled.
    if (long?.entryPrice && held.gt(Decimal.ZERO)) {
      let covered = Decimal.ZERO;
      for (const o of open) {
        if (!o.reduceOnly || o.side !== 'sell' || o.positionSide !== 'long' || !o.price) continue;
        const left = o.size.sub(o.filledSize);
        covered = covered.add(left);
        targets.push({ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: o.price, size: left, positionSide: 'long', reduceOnly: true });
      }
      const uncovered = roundSize(held.sub(covered), inst);
      if (uncovered.gt(Decimal.ZERO)) {
        const tp = roundPrice(long.entryPrice.mul(one.add(step)), inst, 'up');
        targets.push({ side: 'sell', kind: 'limit', timeInForce: 'gtc', price: tp.gt(last) ? tp : roundPrice(last.mul(one.add(step)), inst, 'up'), size: uncovered, positionSide: 'long', reduceOnly: true });
      }
    }
    const { cancel, place } = diffTargets(targets, open);
    const out: StrategyIntent[] = [];
    // By client id: an order not answered yet has no venue id, and every order a strategy sees carries its client id.
    if (cancel.length) out.push({ kind: 'cancel', surface: 'futures', symbol, clientOids: cancel.map((o) => o.clientOid!) });
    if (place.length && !settling) out.push({ kind: 'place', surface: 'futures', symbol, orders: place });

    // A stop-loss placed but not answered yet: adopted once the trigger shows among our orders (not the one it
    // replaced); one that never shows (denied, refused) is placed again after a while, so a position is never left
    // without its stop.
    if (ctx.state.stopLoss === 'pending') {
      const trigger = u.openOrders.find((o) => o.symbol === symbol && o.status === 'untriggered' && o.orderId !== '' && o.orderId !== ctx.state.stopLossReplaced);
      if (trigger) ctx.state.stopLoss = trigger.orderId;
      else if (typeof ctx.state.stopLossAt === 'number' && u.nowMs - ctx.state.stopLossAt > 30_000 && !u.openOrders.some((o) => o.symbol === symbol && o.status === 'untriggered' && o.orderId !== ctx.state.stopLossReplaced)) delete ctx.state.stopLoss;
    }
    // One stop-loss trigger for what is held (a close no larger than the position): placed when a level fills,
    // replaced when the position changes, cancelled when flat.
    const placeStop = () => {
      const sl = roundPrice(centre.mul(one.sub(step.mul(Decimal.fromInt(ctx.params.levels + ctx.params.stopLossSteps)))), inst, 'down');
      out.push({ kind: 'place-trigger', symbol, positionSide: 'long', reduceOnly: true, size: held, triggerPrice: sl });
      ctx.state.stopLoss = 'pending';
      ctx.state.stopLossAt = u.nowMs;
      ctx.state.stopLossSize = held.toString();
    };
    const stopId = ctx.state.stopLoss;
    if (settling) return out;
    if (held.gt(Decimal.ZERO) && !stopId) placeStop();
    else if (typeof stopId === 'string' && stopId !== 'pending') {
      if (held.isZero()) {
        out.push({ kind: 'cancel-trigger', symbol, orderId: stopId });
        delete ctx.state.stopLoss;
      } else if (typeof ctx.state.stopLossSize !== 'string' || !Decimal.from(ctx.state.stopLossSize).eq(held)) {
        out.push({ kind: 'cancel-trigger', symbol, orderId: stopId });
        ctx.state.stopLossReplaced = stopId;
        placeStop();
      }
    }
    return out;
  },

  onEvent(ctx, e) {
    // A fill: the position it makes is not known until the next positions poll (see onMarket).
    if ((e.type === 'filled' || e.type === 'partially-filled') && ctx.state.fillAtMs === undefined) {
      ctx.state.fillAtMs = e.atMs;
      ctx.state.heldAtFill = typeof ctx.state.held === 'string' ? ctx.state.held : '0';
    }
    // The stop-loss trigger's id arrives with its acceptance.
    if (ctx.state.stopLoss === 'pending' && e.type === 'accepted' && e.trigger) {
      ctx.state.stopLoss = e.orderId;
      ctx.state.stopLossClientOid = e.clientOid;
    }
  },
});
