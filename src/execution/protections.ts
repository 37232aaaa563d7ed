// The protection the stop manager keeps, and how it survives a restart: one JSON document in the journal's strategy
// state, under a key of the manager's own (strategy ids cannot hold a colon, so no instance shares it).
import { Decimal } from '../domain/decimal.js';
import type { TrailingStop } from '../domain/intent.js';
import type { PositionSide } from '../domain/market.js';
import type { Journal } from '../journal/journal.js';

/** The journal's strategy-state key of the stop manager. */
export const STOP_STATE_KEY = 'stops:manager';

/** The protection wanted on one key (strategy, symbol, position side), and its trailing state. */
export interface Protection {
  strategyId: string;
  symbol: string;
  positionSide: PositionSide;
  stopLoss: Decimal | null;
  takeProfit: Decimal | null;
  trailing: TrailingStop | null;
  /** The protect intent that asked for it (its journal id): the stop orders placed for it carry it. */
  intentId: number;
  /** The best price since the position opened, and the trailing stop it carries; null while flat. */
  extreme: Decimal | null;
  trail: Decimal | null;
}

interface SavedProtection {
  strategyId: string;
  symbol: string;
  positionSide: PositionSide;
  stopLoss: string | null;
  takeProfit: string | null;
  trailing: { distance: string; step: string } | null;
  intentId: number;
  extreme: string | null;
  trail: string | null;
}

const text = (d: Decimal | null): string | null => (d === null ? null : d.toString());
const dec = (s: string | null | undefined): Decimal | null => (s == null ? null : Decimal.from(s));

function serialise(protections: readonly Protection[]): string {
  const saved: SavedProtection[] = protections.map((p) => ({
    strategyId: p.strategyId,
    symbol: p.symbol,
    positionSide: p.positionSide,
    stopLoss: text(p.stopLoss),
    takeProfit: text(p.takeProfit),
    trailing: p.trailing ? { distance: p.trailing.distance.toString(), step: p.trailing.step.toString() } : null,
    intentId: p.intentId,
    extreme: text(p.extreme),
    trail: text(p.trail),
  }));
  return JSON.stringify({ protections: saved });
}

/** The protection kept in the journal, and the document as read (what a save compares with). */
export function loadProtections(journal: Journal): { protections: Protection[]; saved: string } {
  const json = journal.strategyState(STOP_STATE_KEY);
  if (!json) return { protections: [], saved: serialise([]) };
  const doc = JSON.parse(json) as { protections?: SavedProtection[] };
  const protections = (doc.protections ?? []).map((s) => ({
    strategyId: s.strategyId,
    symbol: s.symbol,
    positionSide: s.positionSide,
    stopLoss: dec(s.stopLoss),
    takeProfit: dec(s.takeProfit),
    trailing: s.trailing ? { distance: Decimal.from(s.trailing.distance), step: Decimal.from(s.trailing.step) } : null,
    intentId: s.intentId,
    extreme: dec(s.extreme),
    trail: dec(s.trail),
  }));
  return { protections, saved: json };
}

/** Writes the protection when it differs from `saved` (the document last written); returns the document now kept. */
export function saveProtections(journal: Journal, protections: readonly Protection[], saved: string, atMs: number): string {
  const json = serialise(protections);
  if (json !== saved) journal.saveStrategyState(STOP_STATE_KEY, json, atMs);
  return json;
}
