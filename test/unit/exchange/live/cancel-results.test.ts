import { describe, expect, it } from '@jest/globals';
import { spotCancelResults } from '../../../../src/exchange/live/parse.js';
import { interpretResponse } from '../../../../src/exchange/live/rest-client.js';
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

describe('spot cancel answers as the venue sends them (S4, read as every answer is)', () => {
  const read = (body: string) => spotCancelResults('S4', interpretResponse('S4', { status: 200, headers: {}, body }), { clientOids: ['a', 'b'] });

  it('a failure of a cancel by client id with no order id (`""`): read, and that item refused (the other left to a query)', () => {
    const r = read(
      '{"code":"00000","msg":"success","requestTime":1743740792018,"data":{"successList":["602882076026339770"],"failureList":[{"orderId":"","clientOid":"a","errMsg":"FAILED_ORDER_NOT_FOUND"}]}}',
    );
    expect(r.map((x) => [x.outcome, x.orderId])).toEqual([
      ['rejected', null],
      ['unknown', null],
    ]);
  });

  it('an order id that is neither a number nor empty is still refused, with the field named', () => {
    expect(() =>
      read(
        '{"code":"00000","msg":"success","requestTime":1743740792018,"data":{"successList":[],"failureList":[{"orderId":"x1","clientOid":"a","errMsg":"E"}]}}',
      ),
    ).toThrow(/failureList\[0\]\.orderId/);
  });
});
