// The live update stream (GET /api/v1/stream): server-sent events, one per ControlEvent (`event: <kind>`,
// `data: <event JSON>`), a comment line every 15 s as heartbeat (timed by the clock), ended cleanly when the
// server closes. A client that stops reading is cut off once its backlog is large: it never holds memory.
import type { ServerResponse } from 'node:http';
import type { Clock, ClockTimer } from '../../util/clock.js';
import type { Control, ControlEvent } from '../control.js';

export const HEARTBEAT_MS = 15_000;
/** A client whose unread backlog grows past this is disconnected (it may reconnect; EventSource does). */
const MAX_BACKLOG_BYTES = 1 << 20;

/** One event as the wire carries it. */
export function sseFrame(e: ControlEvent): string {
  return `event: ${e.kind}\ndata: ${JSON.stringify(e)}\n\n`;
}

interface Client {
  res: ServerResponse;
  unsubscribe: () => void;
  timer: ClockTimer | undefined;
}

export class EventStreams {
  private readonly clients = new Set<Client>();
  private closed = false;

  constructor(
    private readonly control: Control,
    private readonly clock: Clock,
  ) {}

  get open(): number {
    return this.clients.size;
  }

  /** Takes over a response: headers, then every event until the client goes or the server closes. */
  attach(res: ServerResponse): void {
    if (this.closed) {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'shutting down' }));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const client: Client = { res, unsubscribe: () => undefined, timer: undefined };
    const write = (text: string) => {
      if (res.writableEnded || res.destroyed) return;
      res.write(text);
      if (res.writableLength > MAX_BACKLOG_BYTES) this.detach(client, true);
    };
    const beat = () => {
      write(': heartbeat\n\n');
      client.timer = this.clock.setTimer(beat, HEARTBEAT_MS);
    };
    this.clients.add(client);
    client.unsubscribe = this.control.onEvent((e) => write(sseFrame(e)));
    client.timer = this.clock.setTimer(beat, HEARTBEAT_MS);
    res.on('close', () => this.detach(client, false));
    // A first line at once: the client knows the stream is up.
    write(': connected\n\n');
  }

  private detach(client: Client, end: boolean): void {
    if (!this.clients.delete(client)) return;
    client.unsubscribe();
    client.timer?.cancel();
    if (end && !client.res.writableEnded) client.res.end();
  }

  /** Ends every stream (the server is closing); no new one is taken. */
  closeAll(): void {
    this.closed = true;
    for (const c of [...this.clients]) this.detach(c, true);
  }
}
