// Chat commands over the Control interface, free of any bot library: /status /balance /positions /orders /pause
// /resume /halt (confirmed by a code, typed or pressed) /daily. The caller checks the chat is allowed; every command
// acts as {via: 'telegram', who: chat id}.
import { randomInt } from 'node:crypto';
import type { Clock } from '../../util/clock.js';
import type { Actor, CommandResult, Control } from '../control.js';
import { dailySummary } from './daily.js';

/** An answer to a chat: its text and, for a command that asks to be confirmed, a button that confirms it. */
export interface ChatReply {
  text: string;
  button?: { label: string; data: string };
}

/** What the button of a halt confirmation sends back (`halt:<code>`). */
export const HALT_BUTTON = /^halt:(\d{6})$/;

/** How long a /halt waits for its confirmation. */
export const CONFIRM_TTL_MS = 60_000;

const HELP = [
  '/status: trading state, latches, strategies',
  '/balance: balances',
  '/positions: futures positions',
  '/orders [strategy]: open orders',
  '/pause ID [cancel] [reason]: pause a strategy (cancel: also cancel its orders)',
  '/resume ID [reason]: resume a strategy',
  '/halt [reason]: halt trading (cancels only), after a confirmation',
  '/daily: the daily summary now',
].join('\n');

/** Splits `/cmd@bot a b` into the command (lower case, without the bot's name) and its words. */
export function parseCommand(text: string): { command: string; args: string[] } | null {
  const words = text.trim().split(/\s+/);
  const head = words[0];
  if (!head?.startsWith('/') || head.length < 2) return null;
  return { command: head.slice(1).split('@')[0]!.toLowerCase(), args: words.slice(1) };
}

function resultText(r: CommandResult): string {
  return r.ok ? r.detail : `refused (${r.status}): ${r.error}`;
}

export class ChatCommands {
  private readonly pendingHalts = new Map<string, { code: string; reason: string; expiresAtMs: number }>();

  constructor(private readonly control: Control, private readonly clock: Clock) {}

  private actor(chatId: string): Actor {
    return { via: 'telegram', who: chatId };
  }

  /** The answer to a message from an allowed chat; null when the message is not a command. */
  async handle(chatId: string, text: string): Promise<ChatReply | null> {
    const parsed = parseCommand(text);
    if (!parsed) return null;
    const { command, args } = parsed;
    try {
      switch (command) {
        case 'start':
        case 'help':
          return { text: HELP };
        case 'status':
          return { text: this.status() };
        case 'balance':
        case 'balances':
          return { text: this.balances() };
        case 'positions':
          return { text: this.positions() };
        case 'orders':
          return { text: this.orders(args[0]) };
        case 'pause': {
          if (!args[0]) return { text: 'usage: /pause ID [cancel] [reason]' };
          const cancelOrders = args[1] === 'cancel';
          const reason = args.slice(cancelOrders ? 2 : 1).join(' ');
          return { text: resultText(await this.control.pause(args[0], { cancelOrders, ...(reason ? { reason } : {}) }, this.actor(chatId))) };
        }
        case 'resume': {
          if (!args[0]) return { text: 'usage: /resume ID [reason]' };
          const reason = args.slice(1).join(' ');
          return { text: resultText(reason ? await this.control.resume(args[0], this.actor(chatId), reason) : await this.control.resume(args[0], this.actor(chatId))) };
        }
        case 'halt':
          return this.askHalt(chatId, args.join(' '));
        case 'confirm':
          return this.confirm(chatId, args[0] ?? '');
        case 'daily':
          return { text: dailySummary(this.control, this.clock.now()) };
        default:
          return { text: `unknown command /${command}\n${HELP}` };
      }
    } catch (err) {
      return { text: `failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  private askHalt(chatId: string, reason: string): ChatReply {
    const code = String(randomInt(100_000, 1_000_000));
    this.pendingHalts.set(chatId, { code, reason: reason || `halted from Telegram chat ${chatId}`, expiresAtMs: this.clock.now() + CONFIRM_TTL_MS });
    return {
      text: `Halt trading (cancels only, until reset)? Send /confirm ${code} within ${CONFIRM_TTL_MS / 1000} s, or press the button.`,
      button: { label: 'Confirm halt', data: `halt:${code}` },
    };
  }

  /** Confirms a pending /halt of this chat with its code (typed, or from the button). */
  async confirm(chatId: string, code: string): Promise<ChatReply> {
    const pending = this.pendingHalts.get(chatId);
    if (!pending || pending.code !== code) return { text: 'nothing to confirm with that code' };
    this.pendingHalts.delete(chatId);
    if (this.clock.now() > pending.expiresAtMs) return { text: 'that confirmation expired: send /halt again' };
    return { text: resultText(await this.control.halt(pending.reason, this.actor(chatId))) };
  }

  private status(): string {
    const s = this.control.status();
    const lines = [`${s.mode} on ${s.venue}`, `Trading: ${s.tradingState}`];
    for (const l of s.latches) lines.push(`  latch ${l.name}: ${l.reason}`);
    if (s.fenced) lines.push(`New orders wait: ${s.fenced}`);
    const ago = s.reconciliation.lastAtMs === null ? 'never' : `${Math.round((s.nowMs - s.reconciliation.lastAtMs) / 1000)} s ago`;
    lines.push(`Reconciled ${ago}, ${s.reconciliation.unresolved} unresolved`);
    const strategies = this.control.strategies();
    if (strategies.length === 0) lines.push('No strategies');
    for (const st of strategies) lines.push(`${st.id} (${st.name}) ${st.state}: PnL ${st.pnl.realized}, ${st.openOrders} open orders${st.lastError ? `, last error: ${st.lastError}` : ''}`);
    return lines.join('\n');
  }

  private balances(): string {
    const rows = this.control.balances();
    if (rows.length === 0) return 'No balances';
    return rows.map((b) => `${b.surface} ${b.asset}: ${b.total}${b.available !== null ? ` (available ${b.available})` : ''}`).join('\n');
  }

  private positions(): string {
    const rows = this.control.positions();
    if (rows.length === 0) return 'No positions';
    return rows
      .map((p) => `${p.symbol} ${p.side} ${p.size}${p.entryPrice ? ` @ ${p.entryPrice}` : ''}${p.unrealizedPnl ? `, uPnL ${p.unrealizedPnl}` : ''}${p.liquidationPrice ? `, liq ${p.liquidationPrice}` : ''}`)
      .join('\n');
  }

  private orders(strategyId: string | undefined): string {
    const rows = this.control.orders({ scope: 'open', limit: 30, ...(strategyId ? { strategyId } : {}) });
    if (rows.length === 0) return strategyId ? `No open orders of ${strategyId}` : 'No open orders';
    return rows.map((o) => `${o.strategyId} ${o.symbol} ${o.side} ${o.size}${o.price ? ` @ ${o.price}` : ''} ${o.state} (${o.clientOid})`).join('\n');
  }
}
