// Batch write answers -> one ItemResult per item sent: placements (S6, F6) and cancels (S4, S5, F7). An item the
// answer does not account for is unknown (resolved later by query), never guessed accepted or rejected.
import type { CancelTarget, ItemResult, OrderRequest } from '../client.js';
import type { EndpointId } from '../endpoints.js';
import { ExchangeError, classifyItemError } from '../errors.js';
import { longToString } from '../wire/fields.js';
import type { ResponseOf } from '../wire/responses.js';

export { wholeRequestResults } from '../client.js';

function missing(endpoint: EndpointId, what: string): ExchangeError {
  return new ExchangeError('bad-response', `${what} is missing from the answer: its outcome is unknown`, { endpoint });
}

/** S6: accepted items come back in resultList by clientOrderId; an item missing from it is unknown. */
export function spotPlaceResults(data: ResponseOf<'S6'>, sent: OrderRequest[]): ItemResult[] {
  const orderIdByOid = new Map(data.resultList.map((row) => [row.clientOrderId ?? '', longToString(row.orderId)]));
  return sent.map((req) => {
    const orderId = orderIdByOid.get(req.clientOid);
    return orderId !== undefined
      ? { outcome: 'accepted', clientOid: req.clientOid, orderId }
      : { outcome: 'unknown', clientOid: req.clientOid, orderId: null, error: missing('S6', `order ${req.clientOid}`) };
  });
}

/** F6: order_info per item by client_oid (by position when the venue leaves every client_oid out); result false is a refusal with its code. */
export function futuresPlaceResults(data: ResponseOf<'F6'>, sent: OrderRequest[]): ItemResult[] {
  const rowByOid = new Map(data.order_info.map((row) => [row.client_oid ?? '', row]));
  return sent.map((req, i) => {
    const row = rowByOid.get(req.clientOid) ?? (data.order_info.length === sent.length && !data.order_info[i]!.client_oid ? data.order_info[i] : undefined);
    if (!row) return { outcome: 'unknown', clientOid: req.clientOid, orderId: null, error: missing('F6', `order ${req.clientOid}`) };
    const orderId = row.order_id === undefined || row.order_id === null || row.order_id === '' ? null : longToString(row.order_id);
    if (row.result && orderId) return { outcome: 'accepted', clientOid: req.clientOid, orderId };
    if (row.result) return { outcome: 'unknown', clientOid: req.clientOid, orderId: null, error: missing('F6', `order id of ${req.clientOid}`) };
    return { outcome: 'rejected', clientOid: req.clientOid, orderId, error: classifyItemError('F6', row.error_code, row.error_message) };
  });
}

/** S4 / S5: successList holds order ids; failureList the refusals. */
export function spotCancelResults(endpoint: 'S4' | 'S5', data: ResponseOf<'S4'>, target: CancelTarget): ItemResult[] {
  const ok = data.successList.map((id) => longToString(id));
  const failures = data.failureList.map((failure) => ({
    orderId: failure.orderId === undefined || failure.orderId === '' ? null : longToString(failure.orderId),
    clientOid: failure.clientOid || null,
    error: classifyItemError(endpoint, undefined, failure.errMsg),
  }));
  if (endpoint === 'S5' || (!target.orderIds && !target.clientOids)) {
    return [
      ...ok.map((orderId): ItemResult => ({ outcome: 'accepted', clientOid: null, orderId })),
      ...failures.map((failure): ItemResult => ({ outcome: 'rejected', ...failure })),
    ];
  }
  if (target.orderIds) {
    const okSet = new Set(ok);
    return target.orderIds.map((orderId) => {
      if (okSet.has(orderId)) return { outcome: 'accepted', clientOid: null, orderId };
      const failure = failures.find((x) => x.orderId === orderId);
      return failure ? { outcome: 'rejected', ...failure } : { outcome: 'unknown', clientOid: null, orderId, error: missing(endpoint, `order ${orderId}`) };
    });
  }
  // By client ids: successes name order ids only and the venue's failures may leave the client id empty, so an item
  // is accepted only when every item succeeded; a failure is matched by its client id; anything else is unknown
  // (resolved by query: a "canceled" guessed by position could be an order that filled).
  const oids = target.clientOids ?? [];
  const failedByOid = new Map(failures.filter((failure) => failure.clientOid).map((failure) => [failure.clientOid!, failure]));
  const allOk = failures.length === 0 && ok.length === oids.length;
  return oids.map((clientOid, i) => {
    const failure = failedByOid.get(clientOid);
    if (failure) return { outcome: 'rejected', ...failure };
    if (allOk) return { outcome: 'accepted', clientOid, orderId: ok[i]! };
    return { outcome: 'unknown', clientOid, orderId: null, error: missing(endpoint, `cancel of ${clientOid}`) };
  });
}

/** F7: cancelOrderResultList / failInfos per id. */
export function futuresCancelResults(data: ResponseOf<'F7'>, target: CancelTarget): ItemResult[] {
  const rows = [...data.cancelOrderResultList, ...(data.failInfos ?? [])];
  const byId = (id: string) => rows.find((row) => row.order_id !== undefined && row.order_id !== '' && longToString(row.order_id) === id);
  const byOid = (oid: string) => rows.find((row) => row.client_oid === oid);
  const keys = target.orderIds
    ? target.orderIds.map((id) => ({ orderId: id, clientOid: null as string | null }))
    : (target.clientOids ?? []).map((oid) => ({ orderId: null as string | null, clientOid: oid }));
  return keys.map((key) => {
    const row = key.orderId !== null ? byId(key.orderId) : byOid(key.clientOid!);
    if (!row) return { outcome: 'unknown', ...key, error: missing('F7', `cancel of ${key.orderId ?? key.clientOid}`) };
    if (row.result) return { outcome: 'accepted', clientOid: key.clientOid, orderId: key.orderId ?? (row.order_id ? longToString(row.order_id) : '') };
    return { outcome: 'rejected', ...key, error: classifyItemError('F7', row.err_code, row.err_msg) };
  });
}
