// A long futures grid: buy orders on levels below a centre price and reduce-only take-profits one step above the
// average entry for what is held, kept as targets (diffed each update), and the long's protection as a protect
// intent: a stop-loss below the lowest level and, optionally, a trailing stop, kept on the position by the stop
// manager. Closes never exceed the position: a take-profit covers only what resting ones do not, and the stops
// are sized to the position.
import { Decimal, defineStrategy, diffTargets, roundPrice, roundSize, z, type OrderSpec, type StrategyIntent } from 'sextant/strategy';

export default defineStrategy({
  name: 'futures-grid',
  description: 'Long grid: bids on levels under a centre, a take-profit above the entry, a managed stop-loss below the grid, optionally trailing.',
  params: z.strictObject({
    levels: z.number().int().min(1).max(20).default(5),
    /** Distance between levels, in basis points of the centre. */
    stepBps: z.number().int().min(1).max(1000).default(20),
    /** Size per level (base currency). */
    size: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .default('0.01'),
    /** The stop-loss sits this many steps below the lowest level. */
    stopLossSteps: z.number().int().min(1).max(20).default(2),
    /** A trailing stop this many basis points of the centre behind the best price since the long opened; absent: none. */
    trailBps: z.number().int().min(1).max(5000).optional(),
    /** How far (basis points of the centre) the trailing stop must improve before it is moved. */
    trailStepBps: z.number().int().min(1).max(1000).default(1),
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
    // The long's protection: a stop-loss `stopLossSteps` below the lowest level and, with `trailBps`, a trailing stop
    // that wins where it is tighter. The stop manager places it while the long has size, sizes it to the position,
    // trails it and removes it when flat.
    const tick = inst.tickSize;
    const bps = (n: number) => Decimal.fromInt(n).div(Decimal.fromInt(10_000), 12);
    const atLeastTick = (x: Decimal) => (x.lt(tick) ? tick : x);
    const stopLoss = roundPrice(centre.mul(one.sub(step.mul(Decimal.fromInt(ctx.params.levels + ctx.params.stopLossSteps)))), inst, 'down');
    const trailing = ctx.params.trailBps
      ? {
          distance: atLeastTick(roundPrice(centre.mul(bps(ctx.params.trailBps)), inst, 'down')),
          step: atLeastTick(roundPrice(centre.mul(bps(ctx.params.trailStepBps)), inst, 'down')),
        }
      : null;
    // A fill is seen at once (its order leaves our orders), the position it makes only at the next positions poll:
    // until that shows a change (or 15 s pass), nothing new is placed, so a filled level is not bought again and
    // a filled take-profit is not placed anew against a position that is no longer there. Cancels still go.
    if (typeof ctx.state.fillAtMs === 'number') {
      if (held.toString() !== ctx.state.heldAtFill || u.nowMs - ctx.state.fillAtMs > 15_000) {
        delete ctx.state.fillAtMs;
        delete ctx.state.heldAtFill;
      }
    }
    // The highest its stop may sit: the fixed stop-loss, or the best price since the long opened less the trailing
    // distance (the stop manager moves its stop in steps, never above that). At or below it a stop may have fired:
    // as after a fill, nothing new is placed until the position shows the change (once per size held).
    if (held.gt(Decimal.ZERO)) {
      const seen = [typeof ctx.state.best === 'string' ? Decimal.from(ctx.state.best) : (long?.entryPrice ?? last), last];
      ctx.state.best = (seen[0]!.gt(seen[1]!) ? seen[0]! : seen[1]!).toString();
    } else {
      delete ctx.state.best;
      delete ctx.state.stopHeld;
    }
    const trailAt = trailing && typeof ctx.state.best === 'string' ? Decimal.from(ctx.state.best).sub(trailing.distance) : null;
    const stopAt = trailAt && trailAt.gt(stopLoss) ? trailAt : stopLoss;
    if (held.gt(Decimal.ZERO) && last.lte(stopAt) && ctx.state.stopHeld !== held.toString() && ctx.state.fillAtMs === undefined) {
      ctx.state.fillAtMs = u.nowMs;
      ctx.state.heldAtFill = held.toString();
      ctx.state.stopHeld = held.toString();
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
    // position's stops (trigger orders) are kept apart.
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
        targets.push({
          side: 'sell',
          kind: 'limit',
          timeInForce: 'gtc',
          price: tp.gt(last) ? tp : roundPrice(last.mul(one.add(step)), inst, 'up'),
          size: uncovered,
          positionSide: 'long',
          reduceOnly: true,
        });
      }
    }
    const { cancel, place } = diffTargets(targets, open);
    const out: StrategyIntent[] = [];
    // By client id: an order not answered yet has no venue id, and every order a strategy sees carries its client id.
    if (cancel.length) out.push({ kind: 'cancel', surface: 'futures', symbol, clientOids: cancel.map((o) => o.clientOid!) });
    if (place.length && !settling) out.push({ kind: 'place', surface: 'futures', symbol, orders: place });

    // The long's protection, asked for once (and again when it changes, or a while after a denial).
    const wanted = JSON.stringify({ stopLoss, trailing });
    const retryAt = typeof ctx.state.protectRetryAt === 'number' ? ctx.state.protectRetryAt : undefined;
    if (ctx.state.protection !== wanted && (retryAt === undefined || u.nowMs >= retryAt)) {
      out.push({ kind: 'protect', symbol, positionSide: 'long', stopLoss, trailing });
      ctx.state.protection = wanted;
      delete ctx.state.protectRetryAt;
    }
    return out;
  },

  onEvent(ctx, e) {
    // A fill, or a refusal (a close the position no longer has room for: a stop fired): the position as it is now
    // is not known until the next positions poll (see onMarket).
    if ((e.type === 'filled' || e.type === 'partially-filled' || e.type === 'rejected') && ctx.state.fillAtMs === undefined) {
      ctx.state.fillAtMs = e.atMs;
      ctx.state.heldAtFill = typeof ctx.state.held === 'string' ? ctx.state.held : '0';
    }
    // A denial may have been the protection's (the gate refuses new protection while halted): asked for again after a while.
    if (e.type === 'denied') {
      delete ctx.state.protection;
      ctx.state.protectRetryAt = e.atMs + 30_000;
    }
  },
});
