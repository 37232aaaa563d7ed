// A local fake of the Telegram Bot API over HTTP on 127.0.0.1 (getMe, deleteWebhook, getUpdates with long polling,
// sendMessage, answerCallbackQuery): tests queue updates as a chat would send them and wait for what the bot sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  chat_id: string;
  text: string;
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
}

interface Held {
  offset: number;
  res: http.ServerResponse;
}

export class FakeBotApi {
  readonly sent: SentMessage[] = [];
  readonly answered: string[] = [];
  /** Every method called, in order. */
  readonly calls: string[] = [];
  /** Answers the next calls of a method with this Bot API error code (then normally). */
  readonly failNext = new Map<string, number[]>();
  private readonly updates: Array<Record<string, unknown> & { update_id: number }> = [];
  private nextUpdateId = 1;
  private nextMessageId = 1;
  private held: Held[] = [];
  private waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  private readonly server: http.Server;
  url = '';

  constructor(private readonly token: string) {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => this.handle(req.url ?? '', body ? (JSON.parse(body) as Record<string, unknown>) : {}, res));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const h of this.held.splice(0)) this.answer(h.res, []);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(res: http.ServerResponse, result: unknown): void {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, result }));
  }

  private fail(res: http.ServerResponse, code: number, description: string, parameters?: Record<string, unknown>): void {
    res
      .writeHead(code, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) }));
  }

  private handle(url: string, params: Record<string, unknown>, res: http.ServerResponse): void {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(url);
    if (!m) return this.fail(res, 404, 'Not Found');
    if (m[1] !== this.token) return this.fail(res, 401, 'Unauthorized');
    const method = m[2]!;
    this.calls.push(method);
    const failures = this.failNext.get(method);
    const code = failures?.shift();
    if (code !== undefined)
      return code === 429 ? this.fail(res, 429, 'Too Many Requests: retry after 1', { retry_after: 1 }) : this.fail(res, code, 'failed on purpose');
    switch (method) {
      case 'getMe':
        return this.answer(res, { id: 42, is_bot: true, first_name: 'Sextant', username: 'sextant_test_bot' });
      case 'deleteWebhook':
        return this.answer(res, true);
      case 'getUpdates': {
        const offset = Number(params.offset ?? 0);
        this.confirm(offset);
        if (this.updates.length > 0 || !Number(params.timeout)) return this.answer(res, this.updates.slice(0, Number(params.limit ?? 100)));
        this.held.push({ offset, res });
        res.on('close', () => (this.held = this.held.filter((h) => h.res !== res)));
        return;
      }
      case 'sendMessage': {
        const msg: SentMessage = {
          chat_id: String(params.chat_id),
          text: String(params.text),
          ...(params.reply_markup ? { reply_markup: params.reply_markup as SentMessage['reply_markup'] } : {}),
        };
        this.sent.push(msg);
        this.wake();
        return this.answer(res, {
          message_id: this.nextMessageId++,
          date: 1_700_000_000,
          chat: { id: Number(params.chat_id), type: 'private' },
          text: msg.text,
        });
      }
      case 'answerCallbackQuery':
        this.answered.push(String(params.callback_query_id));
        this.wake();
        return this.answer(res, true);
      default:
        return this.fail(res, 404, `Not Found: method ${method}`);
    }
  }

  /** Drops the updates before `offset` (getUpdates confirms them). */
  private confirm(offset: number): void {
    while (this.updates.length > 0 && this.updates[0]!.update_id < offset) this.updates.shift();
  }

  private push(update: Record<string, unknown>): void {
    this.updates.push({ update_id: this.nextUpdateId++, ...update });
    for (const h of this.held.splice(0)) this.answer(h.res, this.updates);
  }

  /** A text message from a chat, as the Bot API delivers it. */
  sendText(chatId: string, text: string): void {
    const chat = { id: Number(chatId), type: 'private' };
    const entities = text.startsWith('/') ? [{ type: 'bot_command', offset: 0, length: text.split(/\s/)[0]!.length }] : undefined;
    this.push({
      message: {
        message_id: this.nextMessageId++,
        date: 1_700_000_000,
        chat,
        from: { id: Number(chatId), is_bot: false, first_name: 'operator' },
        text,
        ...(entities ? { entities } : {}),
      },
    });
  }

  /** A press of an inline button under a message of the bot in a chat. */
  pressButton(chatId: string, data: string): string {
    const id = `cb${this.nextUpdateId}`;
    const chat = { id: Number(chatId), type: 'private' };
    this.push({
      callback_query: {
        id,
        from: { id: Number(chatId), is_bot: false, first_name: 'operator' },
        chat_instance: 'ci',
        data,
        message: { message_id: 1, date: 1_700_000_000, chat, from: { id: 42, is_bot: true, first_name: 'Sextant' }, text: 'confirm?' },
      },
    });
    return id;
  }

  /** Resolves once `test` holds (checked whenever the bot sends something). */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  /** Resolves once `n` messages were sent in all; returns them. */
  async sentCount(n: number): Promise<SentMessage[]> {
    await this.until(() => this.sent.length >= n);
    return this.sent.slice(0, n);
  }

  private wake(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  }

  /** True when no update is left to deliver (the bot confirmed them all). */
  get drained(): boolean {
    return this.updates.length === 0;
  }
}
