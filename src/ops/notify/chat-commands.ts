// Chat commands over the Control interface, free of any bot library. Reads (/status /balance /positions /orders
// /profit /performance /daily) answer at once, and so does /resume. Commands that change trading (/pause /halt
// /flatten /forceexit) first say what they will do and act only on a confirmation within 30 s: the code typed
// (/confirm CODE) or the button pressed. One confirmation waits per chat: a new ask replaces the one before. A chat
// sending more than its share of commands is ignored until it has room again, and told once. The caller checks the
// chat is allowed; every command acts as {via: 'telegram', who: chat id}.
import { randomInt } from 'node:crypto';
import { Decimal } from '../../domain/decimal.js';
import { surfaceOfSymbol } from '../../domain/market.js';
import { assertNever } from '../../util/assert-never.js';
import type { Clock } from '../../util/clock.js';
import { scrubSecrets } from '../../util/secrets.js';
import type { Actor, CommandResult, Control, ProfitWindow, RealisedView } from '../control.js';
import { ChatRate } from './chat-rate.js';
import { dailySummary } from './daily.js';

/** An answer to a chat: its text and, for a command that asks to be confirmed, a button that confirms it. */
export interface ChatReply {
  text: string;
  button?: { label: string; data: string };
}

/** What the button of a confirmation sends back (`confirm:<code>`). */
export const CONFIRM_BUTTON = /^confirm:(\d{6})$/;

/** How long a command that changes trading waits for its confirmation. */
export const CONFIRM_TTL_MS = 30_000;

/** At most this many commands from one chat in any COMMAND_WINDOW_MS; more are ignored, and the chat told once. */
export const MAX_CHAT_COMMANDS = 10;
export const COMMAND_WINDOW_MS = 60_000;

export interface ChatCommandOptions {
  /** The chat command rate (default MAX_CHAT_COMMANDS in COMMAND_WINDOW_MS). */
  rate?: { max: number; windowMs: number };
}

export const HELP = [
  '/status: trading state, latches, strategies',
  '/balance: balances',
  '/positions: futures positions',
  '/orders [strategy]: open orders',
  '/profit: realised PnL and fees per strategy: today (UTC), 7 days, all time',
  '/performance: realised PnL per symbol, best first',
  '/pause ID [cancel] [reason]: pause a strategy (cancel: also cancel its orders)*',
  '/resume ID [reason]: resume a strategy',
  '/forceexit ID SYMBOL [reason]: pause a strategy, cancel its orders on SYMBOL and close what it holds there at market*',
  '/halt [reason]: halt trading (cancels only) until reset*',
  '/flatten [reason]: halt, cancel every order and close every futures position at market*',
  '/daily: the daily summary now',
  `* asks first: /confirm CODE (or the button) within ${CONFIRM_TTL_MS / 1000} s`,
].join('\n');

/**
 * Splits `/cmd@bot a b` into the command (lower case, without the bot's name) and its words; a secret pasted into
 * them (a reason) is scrubbed first: the words are journaled, answered and notified.
 */
export function parseCommand(text: string): { command: string; args: string[] } | null {
  const words = scrubSecrets(text).trim().split(/\s+/);
  const head = words[0];
  if (!head?.startsWith('/') || head.length < 2) return null;
  return { command: head.slice(1).split('@')[0]!.toLowerCase(), args: words.slice(1) };
}

function resultText(r: CommandResult): string {
  return r.ok ? r.detail : `refused (${r.status}): ${r.error}`;
}

/** An exact decimal string without the trailing zeros of its fraction ("12.50000000" → "12.5"): the same number. */
export function shortDecimal(text: string): string {
  if (!text.includes('.')) return text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "12.5 (fees 0.75, 4 fills, 1 round trip)". */
function figuresText(f: RealisedView): string {
  return `${shortDecimal(f.realized)} (fees ${shortDecimal(f.fees)}, ${plural(f.fills, 'fill')}, ${plural(f.roundTrips, 'round trip')})`;
}

const utcText = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function windowTitle(w: ProfitWindow): string {
  switch (w.window) {
    case 'today':
      return `Today (since ${utcText(w.sinceMs!)})`;
    case '7d':
      return `Last 7 days (since ${utcText(w.sinceMs!)})`;
    case 'all':
      return 'All time';
    default:
      return assertNever(w.window);
  }
}

/** A command that waits for its confirmation. */
interface Pending {
  code: string;
  /** The command as the chat would send it again (`/halt`). */
  command: string;
  expiresAtMs: number;
  /** Who asked (the sender's user id, where the chat says it): in a group, only they can confirm. */
  from: string | undefined;
  act: () => Promise<CommandResult>;
}

/** The commands that steer trading (and their confirmations): a rate of their own, so a flood of reads never holds up a halt. */
const STEERING: ReadonlySet<string> = new Set(['pause', 'resume', 'forceexit', 'halt', 'flatten', 'confirm']);

export class ChatCommands {
  private readonly pending = new Map<string, Pending>();
  private readonly rates: Record<'reads' | 'steering', ChatRate>;

  constructor(
    private readonly control: Control,
    private readonly clock: Clock,
    opts: ChatCommandOptions = {},
  ) {
    const limits = opts.rate ?? { max: MAX_CHAT_COMMANDS, windowMs: COMMAND_WINDOW_MS };
    this.rates = { reads: new ChatRate(limits, clock), steering: new ChatRate(limits, clock) };
  }

  private actor(chatId: string): Actor {
    return { via: 'telegram', who: chatId };
  }

  /**
   * Counts a command against the chat's rate: undefined when it is taken; otherwise the notice to send (the first
   * one ignored of a flood) or null (ignored silently).
   */
  private throttled(chatId: string, kind: 'reads' | 'steering'): ChatReply | null | undefined {
    const rate = this.rates[kind];
    const r = rate.take(chatId);
    switch (r.verdict) {
      case 'take':
        return undefined;
      case 'tell': {
        const { max, windowMs } = rate.limits;
        const what = kind === 'reads' ? 'commands' : 'trading commands (/pause /resume /forceexit /halt /flatten /confirm)';
        return { text: `too many ${what} (more than ${max} in ${windowMs / 1000} s): ignoring them for ${Math.max(1, Math.ceil(r.waitMs / 1000))} s` };
      }
      case 'ignore':
        return null;
      default:
        return assertNever(r);
    }
  }

  /** The answer to a message from an allowed chat; null when the message is not a command, or is ignored. */
  async handle(chatId: string, text: string, from?: string): Promise<ChatReply | null> {
    const parsed = parseCommand(text);
    if (!parsed) return null;
    const { command, args } = parsed;
    const limited = this.throttled(chatId, STEERING.has(command) ? 'steering' : 'reads');
    if (limited !== undefined) return limited;
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
        case 'profit':
          return { text: this.profit() };
        case 'performance':
          return { text: this.performance() };
        case 'pause':
          return this.askPause(chatId, args, from);
        case 'resume': {
          if (!args[0]) return { text: 'usage: /resume ID [reason]' };
          const reason = args.slice(1).join(' ');
          return {
            text: resultText(reason ? await this.control.resume(args[0], this.actor(chatId), reason) : await this.control.resume(args[0], this.actor(chatId))),
          };
        }
        case 'forceexit':
          return this.askForceExit(chatId, args, from);
        case 'halt': {
          const reason = args.join(' ') || `halted from Telegram chat ${chatId}`;
          return this.ask(chatId, from, '/halt', `Halt trading (cancels only, until reset)?\nReason: ${reason}`, 'Confirm halt', () =>
            this.control.halt(reason, this.actor(chatId)),
          );
        }
        case 'flatten': {
          const reason = args.join(' ') || `flattened from Telegram chat ${chatId}`;
          const open = this.control.positions().filter((p) => !(Decimal.parse(p.size)?.isZero() ?? false)).length;
          const question = `Halt trading and flatten now: cancel every own order and close ${plural(open, 'futures position')} at market (spot holdings are not sold)?\nReason: ${reason}`;
          return this.ask(chatId, from, '/flatten', question, 'Confirm flatten', () => this.control.flatten(reason, this.actor(chatId)));
        }
        case 'confirm':
          return this.confirm(chatId, args[0] ?? '', from);
        case 'daily':
          return { text: dailySummary(this.control, this.clock.now()) };
        default:
          return { text: `unknown command /${command}\n${HELP}` };
      }
    } catch (err) {
      return { text: `failed: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** A confirmation button pressed (its code, from CONFIRM_BUTTON): counted like a command, then as /confirm CODE. */
  async pressed(chatId: string, code: string, from?: string): Promise<ChatReply | null> {
    const limited = this.throttled(chatId, 'steering');
    if (limited !== undefined) return limited;
    return this.confirm(chatId, code, from);
  }

  /** Says what `command` will do and waits for its confirmation; replaces this chat's confirmation waiting, if any. */
  private ask(chatId: string, from: string | undefined, command: string, question: string, label: string, act: () => Promise<CommandResult>): ChatReply {
    const now = this.clock.now();
    const code = String(randomInt(100_000, 1_000_000));
    const before = this.pending.get(chatId);
    this.pending.set(chatId, { code, command, expiresAtMs: now + CONFIRM_TTL_MS, from, act });
    const replaced = before && now <= before.expiresAtMs ? `\n(This replaces the ${before.command} waiting for its confirmation.)` : '';
    return {
      text: `${question}\nSend /confirm ${code} within ${CONFIRM_TTL_MS / 1000} s, or press the button.${replaced}`,
      button: { label, data: `confirm:${code}` },
    };
  }

  /** Confirms this chat's command waiting for it, with its code (typed, or from the button), by whoever asked for it. */
  async confirm(chatId: string, code: string, from?: string): Promise<ChatReply> {
    const pending = this.pending.get(chatId);
    if (!pending || pending.code !== code) return { text: 'nothing to confirm with that code' };
    // In a group chat another member's confirmation is not the asker's: the command keeps waiting for theirs.
    if (pending.from !== undefined && from !== pending.from) return { text: `only the one who sent ${pending.command} can confirm it` };
    this.pending.delete(chatId);
    if (this.clock.now() > pending.expiresAtMs)
      return { text: `that confirmation expired (${CONFIRM_TTL_MS / 1000} s): nothing was done; send ${pending.command} again` };
    return { text: resultText(await pending.act()) };
  }

  private askPause(chatId: string, args: string[], from: string | undefined): ChatReply {
    const id = args[0];
    if (!id) return { text: 'usage: /pause ID [cancel] [reason]' };
    const strategy = this.control.strategies().find((s) => s.id === id);
    if (!strategy) return { text: `refused (404): no strategy ${id}` };
    const cancelOrders = args[1] === 'cancel';
    const reason = args.slice(cancelOrders ? 2 : 1).join(' ');
    const orders = plural(strategy.openOrders, 'open order');
    const stay = strategy.openOrders === 1 ? 'stays' : 'stay';
    const question = `${cancelOrders ? `Pause ${id} (no new intents) and cancel its ${orders}?` : `Pause ${id} (no new intents; its ${orders} ${stay})?`}${reason ? `\nReason: ${reason}` : ''}`;
    return this.ask(chatId, from, `/pause ${id}`, question, `Confirm pause ${id}`, () =>
      this.control.pause(id, { cancelOrders, ...(reason ? { reason } : {}) }, this.actor(chatId)),
    );
  }

  private askForceExit(chatId: string, args: string[], from: string | undefined): ChatReply {
    const [id, typed] = args;
    if (!id || !typed) return { text: 'usage: /forceexit ID SYMBOL [reason]' };
    const strategy = this.control.strategies().find((s) => s.id === id);
    if (!strategy) return { text: `refused (404): no strategy ${id}` };
    // Symbols as the strategy spells them, however the chat typed them.
    const symbol = strategy.symbols.find((s) => s.toLowerCase() === typed.toLowerCase());
    if (!symbol) return { text: `refused (404): ${id} does not trade ${typed} (its symbols: ${strategy.symbols.join(', ')})` };
    const reason = args.slice(2).join(' ');
    const orders = this.control.orders({ scope: 'open', strategyId: id }).filter((o) => o.symbol === symbol).length;
    const futures = surfaceOfSymbol(symbol) === 'futures';
    const account = strategy.positions.filter((p) => p.symbol === symbol).map((p) => `${p.side} ${p.size}`);
    const close = futures
      ? `close its position there at market (reduce-only; the account holds ${account.length ? account.join(', ') : 'none'})`
      : 'sell at market what it bought there';
    const question = [
      `Force exit ${id} on ${symbol}: pause ${id} (it stays paused until /resume ${id}), cancel its ${plural(orders, 'open order')} on ${symbol} and ${close}?`,
      ...(reason ? [`Reason: ${reason}`] : []),
    ].join('\n');
    return this.ask(chatId, from, `/forceexit ${id} ${symbol}`, question, `Confirm force exit ${id}`, () =>
      this.control.forceExit(id, symbol, this.actor(chatId), reason || undefined),
    );
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
    for (const st of strategies)
      lines.push(
        `${st.id} (${st.name}) ${st.state}: PnL ${st.pnl.realized}, ${st.openOrders} open orders${st.lastError ? `, last error: ${st.lastError}` : ''}`,
      );
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
      .map(
        (p) =>
          `${p.symbol} ${p.side} ${p.size}${p.entryPrice ? ` @ ${p.entryPrice}` : ''}${p.unrealizedPnl ? `, uPnL ${p.unrealizedPnl}` : ''}${p.liquidationPrice ? `, liq ${p.liquidationPrice}` : ''}`,
      )
      .join('\n');
  }

  private orders(strategyId: string | undefined): string {
    const rows = this.control.orders({ scope: 'open', limit: 30, ...(strategyId ? { strategyId } : {}) });
    if (rows.length === 0) return strategyId ? `No open orders of ${strategyId}` : 'No open orders';
    return rows.map((o) => `${o.strategyId} ${o.symbol} ${o.side} ${o.size}${o.price ? ` @ ${o.price}` : ''} ${o.state} (${o.clientOid})`).join('\n');
  }

  private profit(): string {
    const lines = ['Realised PnL (average cost, fees included)'];
    for (const w of this.control.profit()) {
      lines.push(`${windowTitle(w)}:`);
      for (const s of w.strategies) lines.push(`  ${s.id} ${figuresText(s)}`);
      lines.push(`  total ${figuresText(w.total)}`);
    }
    return lines.join('\n');
  }

  private performance(): string {
    const rows = this.control.performance();
    if (rows.length === 0) return 'No fills yet';
    return [
      'Realised PnL by symbol (every strategy, all time, fees included), best first',
      ...rows.map((r, i) => `${i + 1}. ${r.symbol} ${figuresText(r)}`),
    ].join('\n');
  }
}
