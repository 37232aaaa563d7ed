// The live client's one door to the venue's records: answers -> domain values (context, market data, orders,
// account, ledger, fills), domain requests -> batch items, and write answers -> per-item results, each kind in its own
// module and re-exported here.
export { ParseContext, fieldsAt, type Anomaly, type FieldNamer } from './parse-context.js';
export { fundingRate, fundingSettlement, futuresInstrument, orderBook, priceIndex, publicTrade, spotInstrument, spotTicker, ticker } from './parse-market.js';
export { candles } from './parse-candles.js';
export { futuresOrder, spotOrder, triggerOrder } from './parse-orders.js';
export { futuresBalance, position, spotBalance } from './parse-account.js';
export { ledgerEntry } from './parse-ledger.js';
export { LEDGER_KIND_OF, businessTypeOf } from '../wire/enums.js';
export { futuresFill, quotient, spotFill } from './parse-fills.js';
export { futuresOrderItem, spotOrderItem } from './order-items.js';
export { futuresCancelResults, futuresPlaceResults, spotCancelResults, spotPlaceResults, wholeRequestResults } from './item-results.js';
export { canceledAllResults, canceledOrderResult, closeResults, tpSlResult } from './action-results.js';
