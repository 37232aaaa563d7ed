// What passes between the executor and the stop manager: where protect intents go once they pass the gate, and a
// position stop as the manager asks the executor to place it.
import type { Decimal } from '../domain/decimal.js';
import type { ExecutionEvent } from '../domain/events.js';
import type { ProtectIntent } from '../domain/intent.js';
import type { PositionSide } from '../domain/market.js';
import type { TpSlRequest } from '../exchange/client.js';

/** Where protect intents go once they pass the gate (the stop manager): it keeps the wanted protection. */
export interface ProtectionKeeper {
  protect(intent: ProtectIntent, intentId: number, out: ExecutionEvent[]): Promise<void>;
}

/** A position's stop-loss or take-profit as the stop manager asks for it: sized to the position, at market once reached. */
export interface StopOrder {
  strategyId: string;
  /** The protect intent it carries out (its journal id). */
  intentId: number;
  symbol: string;
  positionSide: PositionSide;
  role: TpSlRequest['role'];
  size: Decimal;
  triggerPrice: Decimal;
}
