// The HTTP transport against a real server on 127.0.0.1: answers of any status as they came, compressed ones decoded,
// no redirect followed, a base URL's user and password as Basic authorization; and for a request that got no answer,
// whether it may have reached the venue (a timeout, a dropped connection) or surely did not (connection refused).
import http from 'node:http';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Transport, TransportError } from '../../../../src/exchange/live/transport.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += String(d)));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      switch (req.url) {
        case '/error':
          res.writeHead(500, { 'content-type': 'application/json', 'x-extra': 'kept' }).end('{"code":"40001","msg":"boom"}');
          return;
        case '/gzip':
          res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('{"data":"écu 123456789012345678901"}'));
          return;
        case '/bomb':
          res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)));
          return;
        case '/empty-gzip':
          res.writeHead(204, { 'content-encoding': 'gzip' }).end();
          return;
        case '/odd-encoding':
          res.writeHead(200, { 'content-encoding': 'zstd-x' }).end('??');
          return;
        case '/redirect':
          res.writeHead(302, { location: '/elsewhere' }).end();
          return;
        case '/silent':
          return; // never answers
        case '/drop':
          req.socket.destroy();
          return;
        default:
          res.writeHead(200, { 'content-type': 'application/json' }).end(body === '' ? '{"ok":true}' : body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** What `send` threw. */
async function failure(p: Promise<unknown>): Promise<TransportError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TransportError);
  return err as TransportError;
}

describe('Transport', () => {
  const t = new Transport({ timeoutMs: 1500, maxBodyBytes: 1024 * 1024 });
  afterAll(async () => t.close());

  it('sends the method, headers and body as given and gives the answer back as text, whatever its status', async () => {
    const body = '{"symbol":"cmt_btcusdt","size":"0.0001","orderId":"123456789012345678901"}';
    const ok = await t.send({ method: 'POST', url: `${base}/echo`, headers: { 'Content-Type': 'application/json', 'ACCESS-KEY': 'k' }, body });
    expect(ok).toMatchObject({ status: 200, body });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', url: '/echo', body, headers: { 'content-type': 'application/json', 'access-key': 'k' } });
    const bad = await t.send({ method: 'GET', url: `${base}/error`, headers: {} });
    expect(bad).toMatchObject({ status: 500, body: '{"code":"40001","msg":"boom"}' });
    expect(bad.headers['x-extra']).toBe('kept');
  });

  it('asks for compressed answers and reads gzip; an answer that grows past the limit, or in an unknown encoding, is an error', async () => {
    const res = await t.send({ method: 'GET', url: `${base}/gzip`, headers: {} });
    expect(res.body).toBe('{"data":"écu 123456789012345678901"}');
    expect(seen.at(-1)!.headers['accept-encoding']).toBe('gzip, deflate, br');
    const bomb = await failure(t.send({ method: 'GET', url: `${base}/bomb`, headers: {} }));
    expect({ kind: bomb.kind, sent: bomb.sent }).toEqual({ kind: 'network', sent: true });
    expect(await t.send({ method: 'GET', url: `${base}/empty-gzip`, headers: {} })).toMatchObject({ status: 204, body: '' });
    const odd = await failure(t.send({ method: 'GET', url: `${base}/odd-encoding`, headers: {} }));
    expect(odd.message).toMatch(/zstd-x/);
  });

  it('does not follow a redirect', async () => {
    const res = await t.send({ method: 'GET', url: `${base}/redirect`, headers: {} });
    expect(res.status).toBe(302);
    expect(seen.at(-1)!.url).toBe('/redirect');
  });

  it("sends a base URL's user and password as Basic authorization, not in the URL", async () => {
    const withUser = base.replace('http://', 'http://us%40er:p%3Ass@');
    // The query as written (a signed one must not be re-encoded on the way).
    await t.send({ method: 'GET', url: `${withUser}/echo?x=1&p=a%7Eb~c`, headers: {} });
    expect(seen.at(-1)!.url).toBe('/echo?x=1&p=a%7Eb~c');
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss').toString('base64')}`);
  });

  it('a request without an answer in time may have reached the venue: a timeout, sent', async () => {
    const quick = new Transport({ timeoutMs: 300 });
    try {
      const err = await failure(quick.send({ method: 'POST', url: `${base}/silent`, headers: {}, body: '{}' }));
      expect({ kind: err.kind, sent: err.sent }).toEqual({ kind: 'timeout', sent: true });
      expect(err.message).toMatch(/300 ms/);
    } finally {
      await quick.close();
    }
  });

  it('a connection dropped after the request may have reached it; a refused connection surely did not; neither is sent again', async () => {
    const before = seen.length;
    const dropped = await failure(t.send({ method: 'POST', url: `${base}/drop`, headers: {}, body: '{}' }));
    expect({ kind: dropped.kind, sent: dropped.sent }).toEqual({ kind: 'network', sent: true });
    expect(seen.slice(before).map((x) => x.url)).toEqual(['/drop']);
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(t.send({ method: 'POST', url: `http://127.0.0.1:${port}/x`, headers: {}, body: '{}' }));
    expect({ kind: refused.kind, sent: refused.sent, code: refused.code }).toEqual({ kind: 'network', sent: false, code: 'ECONNREFUSED' });
  });
});
