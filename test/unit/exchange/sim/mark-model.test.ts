// A contract's index and mark: the index at the last trade price, the mark at a seeded, slowly varying basis from
// it, never beyond markBasisBps (0: the mark is the index); recorded mark and index are used as given; the engine,
// its tickers and the in-process F17 serve the same values.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { BASIS_KNOT_MINUTES, MarkModel } from '../../../../src/exchange/sim/mark-model.js';
import { ReplayMarket, SymbolMarket, SyntheticMarket } from '../../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../../src/exchange/sim/simulated-exchange.js';
import { DEFAULT_SIM_FUTURES } from '../../../../src/exchange/sim/futures-views.js';
import { ETH, d, futuresVenue, tick } from './futures-fixture.js';

const spec = DEFAULT_INSTRUMENTS.find((s) => s.symbol === ETH)!;

function marketAt(ts: number, last: number): SymbolMarket {
  const m = new SymbolMarket(0, spec, Decimal.from('0.01'), Decimal.from('0.001'));
  m.ts = ts;
  m.last = last;
  return m;
}

describe('mark model', () => {
  const minutes = Array.from({ length: 6 * 60 }, (_, k) => 1_700_000_000_000 + k * 60_000 + 1234);

  it('0 bps: the mark is the index, which is the last price', () => {
    const model = new MarkModel(42, ETH, 0);
    for (const ts of minutes.slice(0, 30)) {
      const m = marketAt(ts, 300_017);
      expect([model.indexTicks(m), model.markTicks(m)]).toEqual([300_017, 300_017]);
    }
  });

  it('a basis within the bound, of both signs, moving slowly (a step per minute, at most 2 × bound / 15), the same for the same seed', () => {
    const model = new MarkModel(42, ETH, 25);
    const index = 300_000; // 3000.00: 25 bps is 7.50, 750 ticks
    const shifts = minutes.map((ts) => model.markTicks(marketAt(ts, index)) - index);
    expect(shifts.every((s) => Math.abs(s) <= 750)).toBe(true);
    expect(shifts.some((s) => s > 0) && shifts.some((s) => s < 0)).toBe(true);
    for (let k = 1; k < shifts.length; k++) expect(Math.abs(shifts[k]! - shifts[k - 1]!)).toBeLessThanOrEqual(Math.ceil((2 * 750) / BASIS_KNOT_MINUTES) + 1);
    // Within a minute the basis holds.
    expect(model.markTicks(marketAt(minutes[3]! + 30_000, index))).toBe(index + shifts[3]!);
    const again = new MarkModel(42, ETH, 25);
    expect(minutes.map((ts) => again.markTicks(marketAt(ts, index)) - index)).toEqual(shifts);
    const other = new MarkModel(43, ETH, 25);
    expect(minutes.map((ts) => other.markTicks(marketAt(ts, index)) - index)).not.toEqual(shifts);
    // The basis is a fraction of the index, rounded to the tick.
    for (const k of [7, 100, 200]) expect(Math.abs(shifts[k]! - (index * model.basisPpm(minutes[k]!)) / 1_000_000)).toBeLessThanOrEqual(0.5 + 1e-9);
  });

  it('a recorded mark and index are used as given', () => {
    const model = new MarkModel(42, ETH, 25);
    const m = marketAt(minutes[0]!, 300_000);
    m.indexTicks = 300_050;
    expect([model.indexTicks(m), model.markTicks(m) - 300_050 === model.markTicks(marketAt(minutes[0]!, 300_050)) - 300_050]).toEqual([300_050, true]);
    m.markTicks = 299_990;
    expect(model.markTicks(m)).toBe(299_990);
  });

  it('the engine, its ticker and F17 in-process agree; a replay carrying mark and index columns sets them', async () => {
    const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 9, startMs: 1_700_000_000_000, tickIntervalMs: 1000 });
    const sim = new SimulatedExchange(market, { spot: {}, futuresCollateral: '1000', leverage: 10 }, undefined, undefined, {
      ...DEFAULT_SIM_FUTURES,
      markBasisBps: 30,
    });
    let differs = 0;
    for (let k = 1; k <= 40; k++) {
      sim.advanceTo(1_700_000_000_000 + k * 60_000);
      const t = await sim.ticker(ETH);
      const mark = (await sim.priceIndex(ETH, 'mark')).price;
      const index = (await sim.priceIndex(ETH, 'index')).price;
      expect([t.markPrice!.toString(), t.indexPrice!.toString()]).toEqual([mark.toString(), index.toString()]);
      expect(index.eq(t.last!)).toBe(true);
      expect(mark.eq(sim.engine.markPrice(ETH)!) && index.eq(sim.engine.indexPrice(ETH)!)).toBe(true);
      expect(
        mark
          .sub(index)
          .abs()
          .lte(index.mul(d('0.003'))),
      ).toBe(true);
      if (!mark.eq(index)) differs++;
    }
    expect(differs).toBeGreaterThan(20);

    const replay = new ReplayMarket(DEFAULT_INSTRUMENTS, [tick(1000, ETH, '3000', { mark: '3001.5', index: '3000.75' }), tick(2000, ETH, '3002')]);
    const venue = new SimulatedExchange(replay, { spot: {}, futuresCollateral: '1', leverage: 1 });
    venue.advanceTo(1000);
    expect([(await venue.priceIndex(ETH, 'mark')).price.toString(), (await venue.priceIndex(ETH, 'index')).price.toString()]).toEqual(['3001.5', '3000.75']);
    venue.advanceTo(2000);
    expect([venue.engine.markPrice(ETH)!.toString(), venue.engine.indexPrice(ETH)!.toString()]).toEqual(['3002', '3002']);
  });

  it('positions are valued at the mark', () => {
    const v = futuresVenue([tick(1000, ETH, '3000', { mark: '3010' }), tick(2000, ETH, '3000', { mark: '2990' })], { collateral: '1000', leverage: 10 });
    v.to(1000);
    v.market(ETH, 'long', '1');
    expect(v.engine.positionViews(ETH).map((p) => [p.mark.toString(), p.unrealizedPnl.toString()])).toEqual([['3010', '10']]);
    v.to(2000);
    expect(v.engine.positionViews(ETH).map((p) => [p.mark.toString(), p.unrealizedPnl.toString()])).toEqual([['2990', '-10']]);
  });
});
