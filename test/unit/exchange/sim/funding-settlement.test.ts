// Funding settles per contract, at its own interval and offset, on the first tick at or after each settlement time:
// rate × |size| × mark, exact; a long pays and a short receives when the rate is positive, the reverse when
// negative; recorded on the position, the account and the ledger; a gap settles each missed settlement once.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../../src/domain/decimal.js';
import { DEFAULT_INSTRUMENTS } from '../../../../src/exchange/sim/instruments.js';
import { BTC, ETH, SOL, d, futuresVenue, tick } from './futures-fixture.js';

const at = (h: number, m = 0, s = 0) => Date.UTC(2025, 0, 1, h, m, s);
const side = (v: ReturnType<typeof futuresVenue>, symbol: string, s: 'long' | 'short') => v.engine.positionViews(symbol).find((p) => p.side === s)!;

describe('funding settlement', () => {
  it('three settlements of a hedged contract at the mark: long pays and short receives when positive, the reverse when negative', () => {
    const v = futuresVenue(
      [
        tick(at(7), ETH, '3000'),
        tick(at(7, 59, 59), ETH, '3000'),
        tick(at(8), ETH, '3000'),
        tick(at(16, 0, 5), ETH, '3100'),
        tick(at(24, 0, 1), ETH, '2900'),
        tick(at(24, 1), ETH, '2900'),
      ],
      { collateral: '10000', leverage: 10 },
    );
    v.engine.setFundingHistory(ETH, [
      { settlementMs: at(8), rate: d('0.0001') },
      { settlementMs: at(16), rate: d('-0.00005') },
      { settlementMs: at(24), rate: d('0.0002') },
    ]);
    v.to(at(7));
    v.market(ETH, 'long', '1');
    v.market(ETH, 'short', '2');
    const afterFees = v.engine.futuresCollateral();
    expect(afterFees.toString()).toBe('9994.6');
    expect(v.engine.book(ETH)!.watchFromMs).toBe(-Infinity);
    v.to(at(7, 59, 59));
    expect(v.engine.ledgerEntries().filter((e) => e.kind === 'funding')).toEqual([]);
    const expected: Array<[string, string]> = [];
    for (const [ts, rate, mark] of [
      [at(8), '0.0001', '3000'],
      [at(16, 0, 5), '-0.00005', '3100'],
      [at(24, 0, 1), '0.0002', '2900'],
    ] as const) {
      v.to(ts);
      const paid = d(rate).mul(d(mark));
      expected.push([paid.mul(d('1')).neg().toString(), paid.mul(d('2')).toString()]);
      expect([side(v, ETH, 'long').fundingFee.toString(), side(v, ETH, 'short').fundingFee.toString()]).toEqual(expected[expected.length - 1]);
    }
    expect(expected).toEqual([
      ['-0.3', '0.6'],
      ['0.155', '-0.31'],
      ['-0.58', '1.16'],
    ]);
    v.to(at(24, 1));
    expect([side(v, ETH, 'long').cumFundingFee.toString(), side(v, ETH, 'short').cumFundingFee.toString()]).toEqual(['-0.725', '1.45']);
    const account = v.engine.accountView();
    expect([account.cumFunding.toString(), account.collateral.toString()]).toEqual(['0.725', afterFees.add(d('0.725')).toString()]);
    const funding = v.engine.ledgerEntries(ETH).filter((e) => e.kind === 'funding');
    expect(funding.map((e) => [e.rawKind, e.amount.toString(), e.timestampMs])).toEqual([
      ['position_funding', '-0.3', at(8)],
      ['position_funding', '0.6', at(8)],
      ['position_funding', '0.155', at(16, 0, 5)],
      ['position_funding', '-0.31', at(16, 0, 5)],
      ['position_funding', '-0.58', at(24, 0, 1)],
      ['position_funding', '1.16', at(24, 0, 1)],
    ]);
    expect(funding[funding.length - 1]!.balance!.toString()).toBe(account.collateral.toString());
    // After the latest recorded settlement, the interval goes on from it with the latest rate.
    expect([v.engine.funding.nextSettlementMs(ETH, at(24, 1)), v.engine.funding.currentRate(ETH, at(24, 1)).toString()]).toEqual([at(32), '0.0002']);
  });

  it("a contract's own interval and offset; a gap settles each missed settlement once; a position opened after a settlement time pays at the tick that settles it", () => {
    const specs = DEFAULT_INSTRUMENTS.map((s) => (s.symbol === SOL ? { ...s, fundingIntervalMinutes: 60, fundingOffsetMinutes: 15 } : s));
    const v = futuresVenue(
      [
        tick(at(7), SOL, '140'),
        tick(at(7), BTC, '90000'),
        tick(at(8, 14), SOL, '140'),
        tick(at(8, 15), SOL, '140.5'),
        tick(at(11, 20), SOL, '141'),
        tick(at(12, 16), SOL, '139.5'),
      ],
      { collateral: '10000', leverage: 10, specs },
    );
    v.to(at(7));
    expect([v.engine.funding.cycleMinutes(SOL), v.engine.funding.nextSettlementMs(SOL, at(7)), v.engine.funding.nextSettlementMs(BTC, at(7))]).toEqual([
      60,
      at(7, 15),
      at(8),
    ]);
    // No position: a tick costs one comparison against the next settlement.
    expect(v.engine.book(BTC)!.watchFromMs).toBe(at(8));
    v.market(SOL, 'short', '10');
    const rate = (t: number) => v.engine.funding.rate(SOL, t);
    const amounts = () =>
      v.engine
        .ledgerEntries(SOL)
        .filter((e) => e.kind === 'funding')
        .map((e) => e.amount.toString());
    // The short receives rate × size × mark (rates of both signs come out of the seeded model).
    v.to(at(8, 14));
    // The 07:15 settlement, due since, settles at the first tick after it, at that tick's mark.
    const want = [rate(at(7, 15)).mul(d('10')).mul(d('140'))];
    expect(amounts()).toEqual(want.map(String));
    v.to(at(8, 15));
    want.push(rate(at(8, 15)).mul(d('10')).mul(d('140.5')));
    expect(amounts()).toEqual(want.map(String));
    v.to(at(11, 20));
    for (const t of [at(9, 15), at(10, 15), at(11, 15)]) want.push(rate(t).mul(d('10')).mul(d('141')));
    expect(amounts()).toEqual(want.map(String));
    // Opened after the 12:15 settlement time, before the tick that settles it: charged at that tick.
    v.to(at(11, 40));
    v.market(SOL, 'long', '1');
    v.to(at(12, 16));
    const r = rate(at(12, 15)).mul(d('139.5'));
    want.push(r.neg(), r.mul(d('10')));
    expect(amounts()).toEqual(want.map(String));
    expect(side(v, SOL, 'short').cumFundingFee.toString()).toBe(
      want
        .slice(0, 5)
        .concat(want[6]!)
        .reduce((s, x) => s.add(x), Decimal.ZERO)
        .toString(),
    );
    expect(side(v, SOL, 'long').cumFundingFee.toString()).toBe(want[5]!.toString());
    expect(v.engine.funding.nextSettlementMs(SOL, at(12, 16))).toBe(at(13, 15));
  });
});
