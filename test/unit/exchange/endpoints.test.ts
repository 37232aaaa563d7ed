// The pools each endpoint charges: IP always, UID only when signed and weighted, the order-rate pool for order
// endpoints.
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS, chargesOf } from '../../../src/exchange/endpoints.js';

describe('chargesOf', () => {
  it('names the pools and weights of unsigned reads, signed reads and order endpoints', () => {
    expect(chargesOf(ENDPOINTS.F2)).toEqual([{ pool: 'futures:ip', kind: 'ip', weight: 40 }]);
    expect(chargesOf(ENDPOINTS.S0)).toEqual([{ pool: 'spot:ip', kind: 'ip', weight: 1 }]);
    expect(chargesOf(ENDPOINTS.F4)).toEqual([
      { pool: 'futures:ip', kind: 'ip', weight: 2 },
      { pool: 'futures:uid', kind: 'uid', weight: 3 },
    ]);
    expect(chargesOf(ENDPOINTS.S4)).toEqual([
      { pool: 'spot:ip', kind: 'ip', weight: 5 },
      { pool: 'spot:uid', kind: 'uid', weight: 10 },
      { pool: 'spot:orders', kind: 'orders', weight: 1 },
    ]);
  });

  it('charges a UID weight only to signed requests, and nothing of weight 0', () => {
    const unsignedButWeighted = { ...ENDPOINTS.S9, weight: { ip: 5, uid: 7 } };
    expect(chargesOf(unsignedButWeighted).map((c) => c.kind)).toEqual(['ip']);
    const signedWithoutUid = { ...ENDPOINTS.S8, weight: { ip: 5, uid: 0 } };
    expect(chargesOf(signedWithoutUid).map((c) => c.kind)).toEqual(['ip']);
  });

  it('every endpoint: the IP pool of its surface first, the order pool exactly for order-rate-limited ones', () => {
    for (const e of Object.values(ENDPOINTS)) {
      const charges = chargesOf(e);
      expect(charges[0]).toEqual({ pool: `${e.surface}:ip`, kind: 'ip', weight: e.weight.ip });
      expect(charges.some((c) => c.kind === 'orders')).toBe(e.orderRateLimited);
      for (const c of charges) expect(c.pool).toBe(`${e.surface}:${c.kind}`);
    }
  });
});
