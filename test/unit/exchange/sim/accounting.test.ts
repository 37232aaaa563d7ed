// Property test of the simulator's accounting: random order sequences (recorded seeds), checked by an
// independent ledger rebuilt from the fills alone (spot balances, futures positions, collateral, fees); then a
// futures market violent enough to liquidate, with funding settling every few minutes and a seeded mark basis:
// collateral to the last digit from fills, funding worked out here and compensation, and the ledger summing to it.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import type { Fill, PositionSide } from '../../../../src/domain/market.js';
import type { OrderRequest } from '../../../../src/exchange/client.js';
import { MatchingEngine, type SimOrder } from '../../../../src/exchange/sim/engine.js';
import { DEFAULT_SIM_FUTURES } from '../../../../src/exchange/sim/futures-views.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { Prng } from '../../../../src/util/prng.js';
import { ManualClock } from '../../../../src/util/clock.js';

const SEEDS = Array.from({ length: 40 }, (_, i) => 1000 + i);
const OPS = 250;
const d = (s: string) => Decimal.from(s);
const INITIAL = { spot: { USDT: '50000', BTC: '0.5', ETH: '10', SOL: '300' }, futuresCollateral: '20000', leverage: 10 };

function run(seed: number) {
  const clock = new ManualClock(1_700_000_000_000);
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed, startMs: clock.now(), tickIntervalMs: 100 });
  const engine = new MatchingEngine(market.symbols, INITIAL, clock);
  const rng = new Prng(seed * 7919);
  const fills: Array<{ f: Fill; surface: 'spot' | 'futures'; positionSide: PositionSide | null; reduceOnly: boolean; limit: number | null; tick: Decimal }> =
    [];
  engine.onFill = (f, o: SimOrder) => {
    const tick = engine.book(o.symbol)!.inst.tickSize;
    fills.push({ f, surface: o.surface, positionSide: o.positionSide, reduceOnly: o.reduceOnly, limit: o.priceTicks, tick });
  };
  const advance = (ticks: number) =>
    market.advanceTo(clock.now() + ticks * 100, (m) => {
      clock.set(m.ts);
      engine.onTick(m);
    });
  const pick = <T>(xs: T[]): T => xs[rng.below(xs.length)]!;
  const specs = DEFAULT_INSTRUMENTS;
  let n = 0;

  for (let op = 0; op < OPS; op++) {
    advance(1 + rng.below(20));
    const spec = pick(specs);
    const book = engine.book(spec.symbol)!;
    const inst = book.inst;
    const last = inst.tickSize.mul(Decimal.fromInt(book.m.last));
    const size = inst.minSize.mul(Decimal.fromInt(1 + rng.below(spec.surface === 'spot' ? 400 : 2000)));
    const offsetBp = rng.below(400) - 200; // within ±2 %
    const price = last
      .mul(Decimal.fromInt(10_000 + offsetBp))
      .div(Decimal.fromInt(10_000), 12)
      .roundToStep(inst.tickSize, 'down');
    const kind = rng.below(4) === 0 ? 'market' : 'limit';
    const tif = pick(['gtc', 'gtc', 'post_only', 'fok', 'ioc'] as const);
    const action = rng.below(10);
    if (action < 6) {
      const req: OrderRequest = {
        clientOid: `p_${seed}_${++n}`,
        side: rng.below(2) ? 'buy' : 'sell',
        kind,
        timeInForce: tif,
        size,
        ...(kind === 'limit' ? { price } : {}),
      };
      if (spec.surface === 'futures') {
        const positionSide: PositionSide = rng.below(2) ? 'long' : 'short';
        const reduceOnly = rng.below(3) === 0;
        req.positionSide = positionSide;
        req.reduceOnly = reduceOnly;
        req.side = (positionSide === 'long') !== reduceOnly ? 'buy' : 'sell';
      }
      engine.place(spec.surface, spec.symbol, [req]);
    } else if (action < 8) {
      const open = engine.openOrders(spec.surface, spec.symbol).filter((o) => !o.isTrigger);
      if (open.length) engine.cancel(spec.surface, spec.symbol, { orderIds: [pick(open).orderId] });
    } else if (action < 9 && spec.surface === 'futures') {
      const up = rng.below(2) === 0;
      const trig = last.mul(d(up ? '1.003' : '0.997')).roundToStep(inst.tickSize, 'down');
      engine.placeTrigger({
        symbol: spec.symbol,
        clientOid: `t_${seed}_${++n}`,
        positionSide: rng.below(2) ? 'long' : 'short',
        reduceOnly: false,
        size,
        triggerPrice: trig,
      });
    } else {
      engine.cancelAll(spec.surface, spec.symbol);
    }
    // Invariant at every step: nothing negative, positions equal what the fills say.
    for (const b of engine.spotBalances()) {
      expect(b.available!.isNegative() || b.frozen!.isNegative()).toBe(false);
    }
  }
  // Wind down: cancel everything (triggers too), close every position at market.
  for (const spec of specs) {
    engine.cancelAll(spec.surface, spec.symbol);
    for (const o of engine.openOrders(spec.surface, spec.symbol)) if (o.isTrigger) engine.cancelTrigger(spec.symbol, o.orderId);
    for (let guard = 0; guard < 50; guard++) {
      const ps = engine.positions(spec.symbol);
      if (ps.length === 0) break;
      for (const p of ps) {
        engine.place('futures', spec.symbol, [
          {
            clientOid: `c_${seed}_${++n}`,
            side: p.side === 'long' ? 'sell' : 'buy',
            kind: 'market',
            timeInForce: 'ioc',
            size: p.size,
            positionSide: p.side,
            reduceOnly: true,
          },
        ]);
      }
      advance(1);
    }
  }
  return { engine, fills };
}

describe('simulator accounting, checked against a ledger rebuilt from fills', () => {
  it.each(SEEDS)('seed %d', (seed) => {
    const { engine, fills } = run(seed);
    expect(fills.length).toBeGreaterThan(10);

    // Spot: balances = initial + what the fills moved (fees in the quote currency).
    const ledger = new Map<string, Decimal>(Object.entries(INITIAL.spot).map(([k, v]) => [k, d(v)]));
    const add = (asset: string, v: Decimal) => ledger.set(asset, (ledger.get(asset) ?? Decimal.ZERO).add(v));
    // Futures: collateral = initial − fees + realised PnL; with every position closed, PnL is closes − opens.
    let collateral = d(INITIAL.futuresCollateral);
    const open = new Map<string, Decimal>();
    for (const { f, surface, positionSide, reduceOnly, limit, tick } of fills) {
      const inst = engine.book(f.symbol)!.inst;
      expect(f.price.mul(f.size).eq(f.amount)).toBe(true);
      expect(f.fee.eq(f.amount.mul(inst.makerFeeRate)) || f.fee.eq(f.amount.mul(inst.takerFeeRate))).toBe(true);
      if (limit !== null) {
        const lim = tick.mul(Decimal.fromInt(limit));
        expect(f.side === 'buy' ? f.price.lte(lim) : f.price.gte(lim)).toBe(true);
      }
      if (surface === 'spot') {
        if (f.side === 'buy') {
          add(inst.base, f.size);
          add(inst.quote, f.amount.add(f.fee).neg());
        } else {
          add(inst.base, f.size.neg());
          add(inst.quote, f.amount.sub(f.fee));
        }
      } else {
        collateral = collateral.sub(f.fee);
        const sign = positionSide === 'long' ? -1 : 1; // opening a long spends; opening a short receives
        const signed = reduceOnly ? f.amount.mul(Decimal.fromInt(-sign)) : f.amount.mul(Decimal.fromInt(sign));
        collateral = collateral.add(signed);
        const key = `${f.symbol}:${positionSide}`;
        open.set(key, (open.get(key) ?? Decimal.ZERO).add(reduceOnly ? f.size.neg() : f.size));
      }
    }
    for (const b of engine.spotBalances()) {
      expect({ asset: b.asset, total: b.total.toString(), frozen: b.frozen!.toString() }).toEqual({
        asset: b.asset,
        total: (ledger.get(b.asset) ?? Decimal.ZERO).toString(),
        frozen: '0',
      });
    }
    for (const [key, size] of open) expect({ key, size: size.toString() }).toEqual({ key, size: '0' });
    expect(engine.futuresCollateral().toString()).toBe(collateral.toString());
  });

  it('the same seed gives the same fills, byte for byte', () => {
    const a = run(1234).fills.map((x) => JSON.stringify(x.f));
    const b = run(1234).fills.map((x) => JSON.stringify(x.f));
    expect(a.length).toBeGreaterThan(10);
    expect(b).toEqual(a);
  });
});

// Futures only: volatile contracts, settlements every 1, 2 and 3 minutes, leverage 50–100, big sizes.
const FUTURES_SPECS = DEFAULT_INSTRUMENTS.filter((spec) => spec.surface === 'futures').map((spec, i) => ({
  ...spec,
  volBps: 25,
  fundingIntervalMinutes: i + 1,
  fundingOffsetMinutes: i,
}));
const FUTURES_SEEDS = Array.from({ length: 25 }, (_, i) => 5000 + i);
/** What the seeds did (checked once all ran: the properties must not hold vacuously). */
const exercised = { liquidations: 0, fundingEntries: 0, compensations: 0, tpsl: 0 };

function runFutures(seed: number) {
  const clock = new ManualClock(1_700_000_000_000);
  const market = new SyntheticMarket(FUTURES_SPECS, { seed, startMs: clock.now(), tickIntervalMs: 1000 });
  const rng = new Prng(seed * 104729);
  // Liquidation fees: the taker rate, a small one, or one above the maintenance rate (losses beyond the collateral).
  const liquidationFeeRate = [undefined, d('0.001'), d('0.03')][seed % 3];
  const initial = d('20000');
  const engine = new MatchingEngine(market.symbols, { spot: {}, futuresCollateral: initial.toString(), leverage: 50 + rng.below(51) }, clock, undefined, seed, {
    ...DEFAULT_SIM_FUTURES,
    markBasisBps: 20,
    ...(liquidationFeeRate ? { liquidationFeeRate } : {}),
  });
  // The model: positions from fills, funding from the schedule at each settlement a tick reaches.
  const held = new Map<string, Decimal>();
  const sizeOf = (symbol: string, side: PositionSide) => held.get(`${symbol}:${side}`) ?? Decimal.ZERO;
  const sums = { pnl: Decimal.ZERO, realized: Decimal.ZERO, fees: Decimal.ZERO, liquidationFees: Decimal.ZERO, funding: Decimal.ZERO };
  engine.onFill = (f, o) => {
    const inst = engine.book(f.symbol)!.inst;
    const side = o.positionSide!;
    held.set(`${f.symbol}:${side}`, sizeOf(f.symbol, side).add(o.reduceOnly ? f.size.neg() : f.size));
    expect(sizeOf(f.symbol, side).isNegative()).toBe(false);
    // Opening a long spends the amount, opening a short receives it; closes the reverse.
    const spends = (side === 'long') !== o.reduceOnly;
    sums.pnl = sums.pnl.add(spends ? f.amount.neg() : f.amount);
    sums.realized = sums.realized.add(engine.fillDetail(f.symbol, f.fillId)!.realizedPnl ?? Decimal.ZERO);
    if (o.liquidation) {
      expect(f.fee.eq(f.amount.mul(liquidationFeeRate ?? inst.takerFeeRate))).toBe(true);
      sums.liquidationFees = sums.liquidationFees.add(f.fee);
    } else sums.fees = sums.fees.add(f.fee);
  };
  const next = new Map(FUTURES_SPECS.map((spec) => [spec.symbol, engine.funding.nextSettlementMs(spec.symbol, clock.now())]));
  const advance = (ticks: number) =>
    market.advanceTo(clock.now() + ticks * 1000, (m) => {
      clock.set(m.ts);
      const symbol = m.spec.symbol;
      for (let t = next.get(symbol)!; t <= m.ts; t = engine.funding.nextSettlementMs(symbol, t)) {
        const rate = engine.funding.rate(symbol, t);
        const mark = engine.markPrice(symbol)!;
        // Positive rate: the long pays, the short receives.
        sums.funding = sums.funding.sub(rate.mul(sizeOf(symbol, 'long')).mul(mark)).add(rate.mul(sizeOf(symbol, 'short')).mul(mark));
        next.set(symbol, engine.funding.nextSettlementMs(symbol, t));
      }
      engine.onTick(m);
    });
  const pick = <T>(xs: readonly T[]): T => xs[rng.below(xs.length)]!;
  let n = 0;
  for (let op = 0; op < 200; op++) {
    advance(1 + rng.below(30));
    expect(engine.accountView().liquidating).toBe(false);
    const spec = pick(FUTURES_SPECS);
    const book = engine.book(spec.symbol)!;
    const inst = book.inst;
    const last = inst.tickSize.mul(Decimal.fromInt(book.m.last));
    const size = inst.minSize.mul(Decimal.fromInt(1 + rng.below(5000)));
    const side: PositionSide = rng.below(2) ? 'long' : 'short';
    const action = rng.below(20);
    if (action < 12) {
      const reduceOnly = rng.below(4) === 0;
      const kind = rng.below(3) === 0 ? 'limit' : 'market';
      const price = last
        .mul(Decimal.fromInt(10_000 + rng.below(200) - 100))
        .div(Decimal.fromInt(10_000), 12)
        .roundToStep(inst.tickSize, 'down');
      engine.place('futures', spec.symbol, [
        {
          clientOid: `f_${seed}_${++n}`,
          side: (side === 'long') !== reduceOnly ? 'buy' : 'sell',
          kind,
          timeInForce: kind === 'market' ? 'ioc' : 'gtc',
          size,
          positionSide: side,
          reduceOnly,
          ...(kind === 'limit' ? { price } : {}),
        },
      ]);
    } else if (action < 15) {
      const role = rng.below(2) ? 'stop-loss' : 'take-profit';
      const up = (role === 'take-profit') === (side === 'long');
      const trigger = last.mul(d(up ? '1.004' : '0.996')).roundToStep(inst.tickSize, 'down');
      if (engine.placeTpSl({ symbol: spec.symbol, clientOid: `s_${seed}_${++n}`, role, positionSide: side, size, triggerPrice: trigger }).ok) exercised.tpsl++;
    } else if (action < 16) {
      engine.closePositions(rng.below(2) ? spec.symbol : undefined);
    } else if (action < 18) {
      engine.cancelAllOrders(rng.below(2) ? 'normal' : 'plan', spec.symbol);
    } else {
      const trigger = last.mul(d(rng.below(2) ? '1.003' : '0.997')).roundToStep(inst.tickSize, 'down');
      engine.placeTrigger({ symbol: spec.symbol, clientOid: `t_${seed}_${++n}`, positionSide: side, reduceOnly: false, size, triggerPrice: trigger });
    }
  }
  // Wind down: cancel everything, close every position at market.
  engine.cancelAllOrders('normal');
  engine.cancelAllOrders('plan');
  for (let guard = 0; guard < 50 && engine.positionViews().length > 0; guard++) {
    engine.closePositions();
    advance(1);
  }
  return { engine, sums, initial };
}

describe('futures accounting with funding and liquidations', () => {
  it.each(FUTURES_SEEDS)('seed %d', (seed) => {
    const { engine, sums, initial } = runFutures(seed);
    expect(engine.positionViews()).toEqual([]);
    const entries = engine.ledgerEntries();
    const compensation = entries.filter((e) => e.kind === 'liquidation-compensation').reduce((sum, e) => sum.add(e.amount), Decimal.ZERO);
    const collateral = engine.futuresCollateral();
    // collateral = initial + Σ realised PnL − Σ fees + Σ funding (paid negative, received positive) − Σ liquidation fees + Σ compensation
    expect(collateral.toString()).toBe(initial.add(sums.pnl).sub(sums.fees).add(sums.funding).sub(sums.liquidationFees).add(compensation).toString());
    expect(sums.realized.toString()).toBe(sums.pnl.toString());
    expect(engine.accountView().cumFunding.toString()).toBe(sums.funding.toString());
    expect(entries.reduce((sum, e) => sum.add(e.amount), Decimal.ZERO).toString()).toBe(collateral.sub(initial).toString());
    exercised.liquidations += engine.liquidations().length;
    exercised.fundingEntries += entries.filter((e) => e.kind === 'funding').length;
    exercised.compensations += entries.filter((e) => e.kind === 'liquidation-compensation').length;
  });

  it('the seeds liquidated (some beyond the collateral), settled funding and placed TP/SL', () => {
    expect(exercised.liquidations).toBeGreaterThan(10);
    expect(exercised.fundingEntries).toBeGreaterThan(100);
    expect(exercised.tpsl).toBeGreaterThan(10);
    expect(exercised.compensations).toBeGreaterThan(0);
  });
});
