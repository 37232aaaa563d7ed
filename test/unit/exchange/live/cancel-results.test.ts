import { describe, expect, it } from '@jest/globals';
import { spotCancelResults } from '../../../../src/exchange/live/parse.js';
import { JsonBigInt } from '../../../../src/exchange/wire/json.js';
import type { ResponseOf } from '../../../../src/exchange/wire/responses.js';

const answer = (ok: string[], failures: Array<{ orderId?: string; clientOid?: string; errMsg: string }>): ResponseOf<'S4'> =>
  ({
    successList: ok.map((id) => new JsonBigInt(id)),
    failureList: failures.map((f) => ({ ...f, ...(f.orderId ? { orderId: new JsonBigInt(f.orderId) } : {}) })),
  }) as unknown as ResponseOf<'S4'>;

describe('spot cancel answers by client id (S4)', () => {
  it('every item succeeded: each accepted', () => {
    expect(spotCancelResults('S4', answer(['11', '12'], []), { clientOids: ['a', 'b'] }).map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
  });

  it('a failure whose client id the venue left empty: nothing is guessed by position, the rest is unknown (resolved by query)', () => {
    // A filled, B canceled: the venue names B's order id and an unnamed failure.
    const r = spotCancelResults('S4', answer(['12'], [{ orderId: '11', clientOid: '', errMsg: 'FAILED_ORDER_NOT_FOUND' }]), { clientOids: ['a', 'b'] });
    expect(r.map((x) => x.outcome)).toEqual(['unknown', 'unknown']);
  });

  it("a failure matched by its client id is that item's refusal", () => {
    const r = spotCancelResults('S4', answer(['12'], [{ orderId: '11', clientOid: 'a', errMsg: 'FAILED_ORDER_NOT_FOUND' }]), { clientOids: ['a', 'b'] });
    expect(r.map((x) => x.outcome)).toEqual(['rejected', 'unknown']);
  });
});
