// Benchmark strategy: one market order on every tenth market update, buying and then selling the minimum
// size of a futures contract (the position goes flat again), through the risk gate, journal and executor.
import { defineStrategy, z } from 'sextant/strategy';

export default defineStrategy({
  name: 'bench-trade',
  params: z.strictObject({ every: z.number().int().min(1).default(10) }),
  onMarket(ctx) {
    const n = ((ctx.state.n as number | undefined) ?? 0) + 1;
    ctx.state.n = n;
    if (n % ctx.params.every !== 0) return;
    const symbol = ctx.symbols[0]!;
    const inst = ctx.instruments.get(symbol)!;
    const open = (n / ctx.params.every) % 2 === 1;
    return [
      {
        kind: 'place',
        surface: 'futures',
        symbol,
        orders: [{ side: open ? 'buy' : 'sell', kind: 'market', timeInForce: 'ioc', size: inst.minSize, positionSide: 'long', reduceOnly: !open }],
      },
    ];
  },
});
