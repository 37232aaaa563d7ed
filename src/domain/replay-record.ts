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
}
