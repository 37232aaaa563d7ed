// The Telegram bot (grammY): notifications to the allowed chats, and chat commands from them by long polling
// (getUpdates) against a configurable Bot API root; a confirmation's button press (CONFIRM_BUTTON) goes to the chat
// commands like a typed /confirm. Other chats are ignored, and logged once per chat an hour. The token is a registered
// secret: it is in no log line and no error text.
import { Bot, GrammyError, HttpError, InlineKeyboard } from 'grammy';
import type { Clock, ClockTimer } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { registerSecret } from '../../util/secrets.js';
import type { Control } from '../control.js';
import { SendError, errorText, type Sender } from './channel.js';
import { ChatCommands, CONFIRM_BUTTON, type ChatReply } from './chat-commands.js';
import type { Notice } from './notice.js';

/** Telegram takes at most this many characters in a message. */
const TELEGRAM_MAX = 4096;
const HOUR_MS = 3_600_000;
/** How long a stop waits for the Bot API to confirm the last update before it lets go. */
const STOP_WAIT_MS = 2000;

export interface TelegramOptions {
  token: string;
  apiRoot: string;
  chatIds: ReadonlyArray<string>;
  /** Take commands (long polling); false: send only. */
  commands: boolean;
  /** Timeout of one send, ms. */
  timeoutMs: number;
  /** Seconds a getUpdates call waits for updates (the Bot API's long polling timeout). */
  pollTimeoutSeconds?: number;
}

function cut(text: string): string {
  return text.length > TELEGRAM_MAX ? `${text.slice(0, TELEGRAM_MAX - 1)}…` : text;
}

/** A failed Bot API call as a SendError: network trouble, 429 (with its retry_after) and 5xx are worth another try. */
function sendErrorOf(err: unknown): SendError {
  if (err instanceof GrammyError) {
    const retryable = err.error_code === 429 || err.error_code >= 500;
    const after = err.parameters.retry_after;
    return new SendError(`Bot API answered ${err.error_code}: ${err.description}`, retryable, after !== undefined ? after * 1000 : undefined);
  }
  return new SendError(err instanceof HttpError ? err.message : errorText(err), true);
}

export class TelegramBot {
  private readonly bot: Bot;
  private readonly allowed: ReadonlySet<string>;
  private readonly commands: ChatCommands;
  private readonly log: Logger;
  /** When each unknown chat was last logged. */
  private readonly unknownLoggedAt = new Map<string, number>();
  /** The chats each message already reached (a retry goes to the others only). */
  private readonly delivered = new WeakMap<Notice, Set<string>>();
  private stopped = false;
  private backoff: { timer: ClockTimer; resolve: () => void } | undefined;
  private polling: Promise<void> | undefined;
  /** Messages from chats not allowed, ignored (counted since the start). */
  ignored = 0;

  constructor(
    private readonly opts: TelegramOptions,
    control: Control,
    private readonly clock: Clock,
    logger: Logger,
  ) {
    registerSecret(opts.token);
    this.bot = new Bot(opts.token, { client: { apiRoot: opts.apiRoot } });
    this.allowed = new Set(opts.chatIds);
    this.commands = new ChatCommands(control, clock);
    this.log = logger.child({ component: 'notify', channel: 'telegram' });
    this.wire();
  }

  /** Sends a notice to every allowed chat (those it has not reached yet, on a retry). */
  readonly sender: Sender = {
    send: async (notice) => {
      let done = this.delivered.get(notice);
      if (!done) this.delivered.set(notice, (done = new Set()));
      let failure: SendError | undefined;
      for (const chatId of this.opts.chatIds) {
        if (done.has(chatId)) continue;
        const abort = new AbortController();
        const timer = this.clock.setTimer(() => abort.abort(), this.opts.timeoutMs);
        try {
          // grammY types its signal as the abort-controller package's; the platform's AbortSignal is what it uses on Node.
          await this.bot.api.sendMessage(chatId, cut(notice.text), {}, abort.signal as unknown as Parameters<Bot['api']['sendMessage']>[3]);
          done.add(chatId);
        } catch (err) {
          const e = sendErrorOf(err);
          // One chat that can be retried makes the whole message worth another try.
          if (!failure || (e.retryable && !failure.retryable)) failure = e;
        } finally {
          timer.cancel();
        }
      }
      if (failure) throw failure;
    },
  };

  private wire(): void {
    // Only the allowed chats get any further.
    this.bot.use(async (ctx, next) => {
      const id = ctx.chat?.id;
      if (id === undefined) return;
      const chatId = String(id);
      if (!this.allowed.has(chatId)) {
        this.unknownChat(chatId);
        return;
      }
      await next();
    });
    this.bot.on('callback_query:data', async (ctx) => {
      const chatId = String(ctx.chat?.id);
      const m = CONFIRM_BUTTON.exec(ctx.callbackQuery.data);
      await ctx.answerCallbackQuery();
      if (!m) return;
      const reply = await this.commands.pressed(chatId, m[1]!, ctx.from?.id !== undefined ? String(ctx.from.id) : undefined);
      if (reply) await this.reply(chatId, reply);
    });
    this.bot.on('message:text', async (ctx) => {
      const chatId = String(ctx.chat.id);
      const reply = await this.commands.handle(chatId, ctx.message.text, ctx.from?.id !== undefined ? String(ctx.from.id) : undefined);
      if (reply) await this.reply(chatId, reply);
    });
    this.bot.catch((err) => this.log.warn({ err: errorText(err.error) }, 'chat command failed'));
  }

  private async reply(chatId: string, reply: ChatReply): Promise<void> {
    await this.bot.api.sendMessage(
      chatId,
      cut(reply.text),
      reply.button ? { reply_markup: new InlineKeyboard().text(reply.button.label, reply.button.data) } : {},
    );
  }

  private unknownChat(chatId: string): void {
    this.ignored++;
    const now = this.clock.now();
    const last = this.unknownLoggedAt.get(chatId);
    if (last !== undefined && now - last < HOUR_MS) return;
    this.unknownLoggedAt.set(chatId, now);
    this.log.warn({ chatId }, 'message from a chat not in notify.telegram.chatIds: ignored');
  }

  /** Starts taking commands (when enabled): the bot's identity first (retried with backoff), then long polling. */
  start(): void {
    if (!this.opts.commands || this.polling || this.stopped) return;
    this.polling = this.poll();
  }

  private async poll(): Promise<void> {
    for (let delayMs = 1000; !this.stopped; delayMs = Math.min(delayMs * 2, 60_000)) {
      try {
        this.bot.botInfo = await this.bot.api.getMe();
        break;
      } catch (err) {
        if (err instanceof GrammyError && err.error_code === 401) {
          this.log.error('the Bot API refused the token: no chat commands');
          return;
        }
        this.log.warn({ err: errorText(err), retryInMs: delayMs }, 'Bot API not reachable: trying again');
        await this.wait(delayMs);
      }
    }
    if (this.stopped) return;
    try {
      await this.bot.start({
        allowed_updates: ['message', 'callback_query'],
        ...(this.opts.pollTimeoutSeconds !== undefined ? { timeout: this.opts.pollTimeoutSeconds } : {}),
      });
    } catch (err) {
      if (!this.stopped) this.log.error({ err: errorText(err) }, 'chat commands stopped');
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(() => {
        this.backoff = undefined;
        resolve();
      }, ms);
      this.backoff = { timer, resolve };
    });
  }

  /** Stops polling; waits a bounded time for the Bot API to confirm the last update taken. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.backoff) {
      this.backoff.timer.cancel();
      this.backoff.resolve();
    }
    if (!this.bot.isRunning()) return;
    let timer: ClockTimer | undefined;
    await Promise.race([
      this.bot.stop().catch((err: unknown) => this.log.warn({ err: errorText(err) }, 'stopping chat commands failed')),
      new Promise<void>((resolve) => (timer = this.clock.setTimer(resolve, STOP_WAIT_MS))),
    ]);
    timer?.cancel();
  }
}
