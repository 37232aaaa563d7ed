// Futures write answers exactly as the venue sends them: batch place and cancel (F6, F7), trigger orders (F8, F9),
// position take-profit / stop-loss (F23, F24), single place and cancel (F25, F26), close positions (F27) and cancel
// all of a kind (F28). Ids beyond 2^53 arrive as raw JSON numbers where noted and are kept exact.
import { z } from 'zod';
import { long, strOrNull } from './fields.js';

const bool = z.boolean();
const opt = <T extends z.ZodType>(t: T) => t.optional();
const textOrNull = z.string().nullable();

export const futuresBatchPlace = z.looseObject({
  order_info: z.array(
    z.looseObject({
      order_id: opt(z.union([long, z.literal(''), z.null()])),
      client_oid: opt(textOrNull),
      result: bool,
      error_code: opt(textOrNull),
      error_message: opt(textOrNull),
    }),
  ),
  result: bool,
});
export type WireBatchPlace = z.infer<typeof futuresBatchPlace>;

const cancelOrderResult = z.looseObject({
  err_code: opt(textOrNull),
  err_msg: opt(textOrNull),
  order_id: opt(z.union([long, z.literal('')])),
  client_oid: opt(textOrNull),
  result: bool,
});
export const futuresBatchCancel = z.looseObject({
  result: bool,
  symbol: opt(z.string()),
  orderIds: opt(z.array(long)),
  clientOids: opt(z.array(z.string())),
  cancelOrderResultList: z.array(cancelOrderResult),
  failInfos: opt(z.array(cancelOrderResult)),
});
export type WireBatchCancel = z.infer<typeof futuresBatchCancel>;

/** F8 and F25: the new order's id (client_oid null in the documented samples). */
export const futuresPlacedOrder = z.looseObject({ client_oid: strOrNull, order_id: long });
export const futuresCancelPlan = z.looseObject({
  order_id: long,
  client_oid: opt(strOrNull),
  symbol: opt(z.string()),
  result: bool,
  err_code: opt(textOrNull),
  err_msg: opt(textOrNull),
});

/** F23: a bare array of {orderId (raw JSON number; 0 when failed), success}; no error text in v2. */
export const tpSlPlaced = z.array(z.looseObject({ orderId: long, success: bool }));
export type WireTpSlPlaced = z.infer<typeof tpSlPlaced>;

/**
 * F24: the one futures answer in the envelope ({code "00000", msg, requestTime, data}); its `data` is documented
 * null and sent as "". A code other than "00000" is an error like any enveloped futures answer.
 */
export const tpSlModified = z.union([z.literal(''), z.null()]).optional();

/** F26: bare; `order_id` "" when the venue names none. */
export const futuresCanceledOrder = z.looseObject({
  order_id: z.union([long, z.literal('')]),
  client_oid: opt(strOrNull),
  result: bool,
  err_code: opt(textOrNull),
  err_msg: opt(textOrNull),
});
export type WireCanceledOrder = z.infer<typeof futuresCanceledOrder>;

/** F27: one item per position closed; `positionId` and `successOrderId` (0 when failed) raw JSON numbers. */
export const closedPositions = z.array(z.looseObject({ positionId: long, successOrderId: long, errorMessage: opt(textOrNull), success: bool }));
export type WireClosedPositions = z.infer<typeof closedPositions>;

/** F28: one item per order; `orderId` a raw JSON number. */
export const canceledAll = z.array(z.looseObject({ orderId: long, success: bool }));
export type WireCanceledAll = z.infer<typeof canceledAll>;
