// Domain order requests -> the venue's batch items: spot S6 `orderList` items and futures F6 `orderDataList` items.
import { requestedPositionSide, type OrderRequest } from '../client.js';
import { TIF_CODE, TIF_NAME, futuresTypeCode } from '../wire/enums.js';
import type { WireFuturesOrderItem, WireSpotOrderItem } from '../wire/requests.js';

export function spotOrderItem(req: OrderRequest): WireSpotOrderItem {
  return {
    side: req.side,
    orderType: req.kind,
    force: TIF_NAME[req.timeInForce],
    ...(req.kind === 'limit' && req.price ? { price: req.price.toString() } : {}),
    quantity: req.size.toString(),
    clientOrderId: req.clientOid,
  };
}

export function futuresOrderItem(req: OrderRequest): WireFuturesOrderItem {
  const positionSide = requestedPositionSide(req);
  return {
    client_oid: req.clientOid,
    size: req.size.toString(),
    type: futuresTypeCode(positionSide, req.reduceOnly ?? false),
    order_type: TIF_CODE[req.timeInForce],
    match_price: req.kind === 'market' ? '1' : '0',
    // The venue requires a price even for market orders and ignores it.
    price: req.kind === 'limit' && req.price ? req.price.toString() : '0',
  };
}
