// What the simulator still knows of past orders and fills: orders by id, each book's order history and fills
// (by order, and futures fill details), bounded by `retain` per symbol. Open orders are never dropped.
import type { Fill } from '../../domain/market.js';
import type { Book, FuturesFillDetail } from './book.js';
import type { SimOrder } from './sim-order.js';

export class OrderHistory {
  private readonly byId = new Map<string, SimOrder>();

  /** `retain`: final orders and fills kept per symbol for history reads (the oldest dropped beyond it). */
  constructor(private readonly retain: number) {}

  get(orderId: string): SimOrder | undefined {
    return this.byId.get(orderId);
  }

  /**
   * Adds an order to the history. Once a book holds twice `retain` orders, its oldest final ones go until `retain`
   * remain (fewer go when too many are still open), and so do its fills beyond `retain`, with their details.
   */
  remember(book: Book, order: SimOrder): void {
    this.byId.set(order.orderId, order);
    book.history.push(order);
    if (book.history.length <= this.retain * 2) return;
    const keep: SimOrder[] = [];
    const drop = book.history.length - this.retain;
    let dropped = 0;
    for (const old of book.history) {
      if (dropped < drop && (old.status === 'filled' || old.status === 'canceled')) {
        this.byId.delete(old.orderId);
        dropped++;
      } else keep.push(old);
    }
    book.history = keep;
    if (book.fills.length > this.retain) {
      const cut = book.fills.length - this.retain;
      for (let k = 0; k < cut; k++) {
        const fill = book.fills[k]!;
        book.fillDetails.delete(fill.fillId);
        // The oldest fills go first, so each is the first of its order's list.
        const ofOrder = book.fillsByOrder.get(fill.orderId);
        ofOrder?.shift();
        if (ofOrder?.length === 0) book.fillsByOrder.delete(fill.orderId);
      }
      book.fills = book.fills.slice(cut);
    }
  }

  /** Keeps a new fill (and, for futures, its detail) with its book. */
  recordFill(book: Book, fill: Fill, detail: FuturesFillDetail | undefined): void {
    book.fills.push(fill);
    const ofOrder = book.fillsByOrder.get(fill.orderId);
    if (ofOrder) ofOrder.push(fill);
    else book.fillsByOrder.set(fill.orderId, [fill]);
    if (detail) book.fillDetails.set(fill.fillId, detail);
  }

  /** The newest kept order carrying a client id (client ids are unique only among open orders). */
  newestWithClientOid(books: Iterable<Book>, clientOid: string | undefined): SimOrder | undefined {
    let found: SimOrder | undefined;
    for (const book of books)
      for (const order of book.history) if (order.clientOid === clientOid && (!found || order.createdAtMs >= found.createdAtMs)) found = order;
    return found;
  }

  /** A book's kept fills, of one order or of all, newest first. */
  fills(book: Book, orderId?: string): Fill[] {
    return (orderId ? (book.fillsByOrder.get(orderId) ?? []) : book.fills).slice().reverse();
  }
}
