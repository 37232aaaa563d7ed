// Trusted prices: non-positive, ×10 and off-book samples never become a reference or an equity price on their
// own; a real jump is trusted once a newer reading confirms it; the venue's own timestamp is tracked in local time.
import { describe, expect, it } from '@jest/globals';
import { Decimal } from '../../../src/domain/decimal.js';
import type { Ticker } from '../../../src/domain/market.js';
import { PriceSanity } from '../../../src/domain/price-sanity.js';

const d = (s: string) => Decimal.from(s);
const tk = (last: string | null, venueMs: number, book?: { bid: string; ask: string }): Ticker => ({
  symbol: 'cmt_ethusdt',
  last: last === null ? null : d(last),
  bestBid: book ? d(book.bid) : null,
  bestAsk: book ? d(book.ask) : null,
  markPrice: null,
  indexPrice: null,
  high24h: null,
  low24h: null,
  volume24h: null,
  baseVolume24h: null,
  timestampMs: venueMs,
});

/** Feeds readings one per second of local time (venue time = local time + 1 h of skew unless given); returns what each left as reference. */
function run(sanity: PriceSanity, readings: Array<Ticker>): Array<string | undefined> {
  return readings.map((t, i) => {
    sanity.observe(t, 1000 * (i + 1));
    return sanity.reference('cmt_ethusdt')?.price.toString();
  });
}
const venue = (i: number) => 3_600_000 + 1000 * (i + 1);

describe('price sanity', () => {
  it('the very Decimal trusted before is trusted again, as its value would be: a pending jump is dropped, the screen goes on from it', () => {
    const s = new PriceSanity(d('20'));
    const held = d('3000');
    const same = (ms: number): Ticker => ({ ...tk(null, ms), last: held });
    // 4000 is a jump (no book to vouch for it): pending. The held price again drops it, so 4000 next is a jump anew.
    expect(run(s, [same(venue(0)), tk('4000', venue(1)), same(venue(2)), tk('4000', venue(3)), tk('4000', venue(4))])).toEqual([
      '3000',
      undefined,
      '3000',
      undefined,
      '4000',
    ]);
    expect(s.accepted('cmt_ethusdt')).toBe(s.reference('cmt_ethusdt')?.price);
  });

  it("a spot pair's last trade is no feed that can freeze: a quiet pair keeps a reference without the frozen-feed time", () => {
    const s = new PriceSanity(d('20'));
    const trade = (ms: number): Ticker => ({ ...tk('3000', ms), fromTrade: true });
    s.observe(trade(5), 1000);
    s.observe(trade(5), 60_000);
    expect(s.reference('cmt_ethusdt')).toEqual({ price: d('3000'), atMs: 60_000 });
    const f = new PriceSanity(d('20'));
    f.observe(tk('3000', 5), 1000);
    f.observe(tk('3000', 5), 60_000);
    expect(f.reference('cmt_ethusdt')?.sourceAdvancedAtMs).toBe(1000);
  });

  it('a negated or zero sample gives no reference and leaves the accepted price as it was', () => {
    const s = new PriceSanity(d('20'));
    expect(run(s, [tk('3000', venue(0)), tk('-3000', venue(1)), tk('0', venue(2)), tk(null, venue(3)), tk('3001.5', venue(4))])).toEqual([
      '3000',
      undefined,
      undefined,
      undefined,
      '3001.5',
    ]);
    const t = new PriceSanity(d('20'));
    run(t, [tk('3000', venue(0)), tk('-3000', venue(1))]);
    expect(t.accepted('cmt_ethusdt')!.toString()).toBe('3000');
  });

  it('a single ×10 sample is an outlier: no reference, no equity price; the next normal reading is trusted', () => {
    const s = new PriceSanity(d('20'));
    const refs = run(s, [tk('3000', venue(0)), tk('30000', venue(1))]);
    expect(refs).toEqual(['3000', undefined]);
    expect(s.accepted('cmt_ethusdt')!.toString()).toBe('3000');
    expect(run(s, [tk('3002', venue(2))])).toEqual(['3002']);
  });

  it('a jump is trusted once the next, newer reading confirms it; a frozen sample never confirms itself', () => {
    const moved = new PriceSanity(d('20'));
    expect(run(moved, [tk('3000', venue(0)), tk('3900', venue(1)), tk('3910', venue(2))])).toEqual(['3000', undefined, '3910']);
    const frozen = new PriceSanity(d('20'));
    expect(run(frozen, [tk('3000', venue(0)), tk('30000', venue(1)), tk('30000', venue(1)), tk('30000', venue(1))])).toEqual([
      '3000',
      undefined,
      undefined,
      undefined,
    ]);
    expect(frozen.accepted('cmt_ethusdt')!.toString()).toBe('3000');
    // Not consecutive: a reading in between starts the count again.
    const broken = new PriceSanity(d('20'));
    expect(run(broken, [tk('3000', venue(0)), tk('30000', venue(1)), tk('3000', venue(2)), tk('30000', venue(3))])).toEqual([
      '3000',
      undefined,
      '3000',
      undefined,
    ]);
  });

  it("a last price far outside the ticker's own bid/ask is never trusted, even repeated, even as the first reading", () => {
    const book = { bid: '2999.9', ask: '3000.1' };
    const s = new PriceSanity(d('20'));
    expect(run(s, [tk('30000', venue(0), book), tk('30000', venue(1), book), tk('30001', venue(2), book)])).toEqual([undefined, undefined, undefined]);
    expect(s.accepted('cmt_ethusdt')).toBeUndefined();
    // Inside the book, or just off it (a trade a moment before the book moved): trusted.
    expect(run(s, [tk('3000', venue(3), book), tk('3003', venue(4), book)])).toEqual(['3000', '3003']);
    // A non-positive bid or ask says nothing about the last price.
    expect(run(s, [tk('3001', venue(5), { bid: '0', ask: '-3000' })])).toEqual(['3001']);
  });

  it("tracks, in local time, when the venue's own timestamp last advanced (clock skew does not matter)", () => {
    const s = new PriceSanity(d('20'));
    s.observe(tk('3000', 9_000_000), 1000);
    s.observe(tk('3000', 9_000_500), 2000);
    s.observe(tk('3000', 9_000_500), 3000);
    s.observe(tk('3000', 9_000_500), 4000);
    expect(s.reference('cmt_ethusdt')).toEqual({ price: d('3000'), atMs: 4000, sourceAdvancedAtMs: 2000 });
    // A venue clock that steps back, then on: advancing again from there counts.
    s.observe(tk('3000', 8_000_000), 5000);
    s.observe(tk('3000', 8_000_100), 6000);
    expect(s.reference('cmt_ethusdt')!.sourceAdvancedAtMs).toBe(6000);
  });
});
