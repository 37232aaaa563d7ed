// Answers of the futures single-order and whole-account writes -> results: F23 (take-profit / stop-loss), F26 (one
// cancel), F27 (close positions) and F28 (cancel all of a kind). An answer that does not account for what was sent
// leaves it unknown; a failure the venue reports is a refusal, with the venue's text where it gives one.
import type { ItemResult, PositionCloseResult } from '../client.js';
import type { EndpointId } from '../endpoints.js';
import { ExchangeError, classifyItemError } from '../errors.js';
import { longToString } from '../wire/fields.js';
import type { ResponseOf } from '../wire/responses.js';

/** An id the venue sends as 0 when there is none (F23 orderId, F27 successOrderId). */
function idOrNull(digits: string): string | null {
  return /^0+$/.test(digits) ? null : digits;
}

function unknownItem(endpoint: EndpointId, what: string): ExchangeError {
  return new ExchangeError('bad-response', `${what} is missing from the answer: its outcome is unknown`, { endpoint });
}

/** A refusal the venue states without a reason. */
function refusedWithoutReason(endpoint: EndpointId, message: string): ExchangeError {
  return classifyItemError(endpoint, undefined, message);
}

/**
 * F23: one {orderId, success} item for the one order sent. success false is a refusal (v2 gives no reason); success
 * without an order id, or no item at all, is unknown (resolved through the trigger orders, F21).
 */
export function tpSlResult(data: ResponseOf<'F23'>, clientOid: string): ItemResult {
  if (data.length !== 1)
    return { outcome: 'unknown', clientOid, orderId: null, error: unknownItem('F23', `the one take-profit / stop-loss ${clientOid} (${data.length} items)`) };
  const item = data[0]!;
  const orderId = idOrNull(longToString(item.orderId));
  if (!item.success) {
    return {
      outcome: 'rejected',
      clientOid,
      orderId,
      error: refusedWithoutReason('F23', `take-profit / stop-loss ${clientOid} refused by the venue (F23 answers success false and gives no reason)`),
    };
  }
  return orderId
    ? { outcome: 'accepted', clientOid, orderId }
    : { outcome: 'unknown', clientOid, orderId: null, error: unknownItem('F23', `the order id of ${clientOid}`) };
}

/** F26: `result` true is the cancel done; false a refusal with the venue's `err_msg`. */
export function canceledOrderResult(data: ResponseOf<'F26'>, target: { orderId: string } | { clientOid: string }): ItemResult {
  const sentId = 'orderId' in target ? target.orderId : null;
  const orderId = data.order_id === '' ? sentId : longToString(data.order_id);
  const clientOid = data.client_oid || ('clientOid' in target ? target.clientOid : null);
  if (data.result) return { outcome: 'accepted', clientOid, orderId: orderId ?? '' };
  return { outcome: 'rejected', clientOid, orderId, error: classifyItemError('F26', data.err_code, data.err_msg) };
}

/** F27: one result per position the venue closed or failed to close, with its error text ("" -> null). */
export function closeResults(data: ResponseOf<'F27'>): PositionCloseResult[] {
  return data.map((item) => {
    const orderId = item.success ? idOrNull(longToString(item.successOrderId)) : null;
    return { positionId: longToString(item.positionId), ok: item.success, orderId, error: item.errorMessage || null };
  });
}

/** F28: one result per order the venue names; a failure carries no reason in the answer. */
export function canceledAllResults(data: ResponseOf<'F28'>, kind: 'normal' | 'plan'): ItemResult[] {
  return data.map((item): ItemResult => {
    const orderId = longToString(item.orderId);
    if (item.success) return { outcome: 'accepted', clientOid: null, orderId };
    return {
      outcome: 'rejected',
      clientOid: null,
      orderId,
      error: refusedWithoutReason('F28', `${kind} order ${orderId} not canceled (F28 answers success false and gives no reason)`),
    };
  });
}
