// One market event of a replay file (JSON lines): a trade at a time, with the book around it when known.
export interface ReplayRecord {
  ts: number;
  symbol: string;
  price: string;
  size: string;
  /** Optional: best bid / ask at the time; default one tick around the trade. */
  bid?: string;
  ask?: string;
  /** Optional: true when the aggressor sold. */
  buyerMaker?: boolean;
  /**
   * Optional, futures: the contract's mark and index price at the time, as the venue published them (F12/F17, or
   * F11 with priceType MARK/INDEX). Absent: the simulator derives them from the trade (its mark model).
   */
  mark?: string;
  index?: string;
}
