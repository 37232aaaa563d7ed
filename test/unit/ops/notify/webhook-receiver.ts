// A local webhook receiver over HTTP on 127.0.0.1: records each request (headers, raw body) and answers with the
// statuses the test queues (200 when none is left), or holds every request unanswered (a hung receiver).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Statuses of the next answers, in order. */
  readonly statuses: number[] = [];
  /** True: requests are recorded and never answered. */
  hang = false;
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += String(d)));
    req.on('end', () => {
      this.received.push({ path: req.url ?? '', headers: req.headers, body });
      this.waiters = this.waiters.filter((w) => (this.received.length >= w.n ? (w.resolve(), false) : true));
      if (this.hang) return;
      const status = this.statuses.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '2' } : {}) }).end('{}');
    });
  });
  url = '';

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  /** Resolves once `n` requests arrived in all. */
  async count(n: number): Promise<Received[]> {
    if (this.received.length < n) await new Promise<void>((resolve) => this.waiters.push({ n, resolve }));
    return this.received.slice(0, n);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
