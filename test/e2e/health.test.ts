// `sextant health` as the container health checks run it: a real daemon (on the embedded simulator) bound beyond
// loopback through SEXTANT_HTTP_HOST with its token in a secret file, the port read from the config alone: 200 ->
// exit 0; without the token -> 1; an unhealthy answer -> 1; nothing listening -> 1.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Metrics, OpsServer } from '../../src/app/http.js';
import { runCli } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-health-'));
const TOKEN = 'health-e2e-t0ken-5c8d1e07';
const tokenFile = join(dir, 'http_token');
writeFileSync(tokenFile, `${TOKEN}\n`);
chmodSync(tokenFile, 0o600);

/** A port nothing listens on now (the system's choice on every address, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A config whose only word on where the daemon listens is its port (the host comes from the environment or the default). */
function configWithPort(name: string, port: number): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'mode: live',
      'sim: { embedded: true, port: 0 }',
      `journal: { path: ${JSON.stringify(join(dir, `${name}.sqlite`))} }`,
      `daemon: { http: { port: ${port} } }`,
      '',
    ].join('\n'),
  );
  return file;
}

const health = (config: string, env: Record<string, string>) => runCli(['health', '--config', config], { PATH: process.env.PATH, ...env });

const stops: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const stop of stops) await stop();
});

describe('sextant health', () => {
  it('a daemon bound beyond loopback, its token in a secret file: exit 0 with its answer; without the token, exit 1; once stopped, exit 1', async () => {
    const port = await freePort();
    const config = configWithPort('daemon', port);
    const env = { SEXTANT_HTTP_HOST: '0.0.0.0', SEXTANT_HTTP_TOKEN_FILE: tokenFile };
    const daemon = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', config], { env: { PATH: process.env.PATH, ...env } });
    let out = '';
    const closed = new Promise<number | null>((resolve) => daemon.on('close', resolve));
    const stop = async () => {
      if (daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGTERM');
      return closed;
    };
    stops.push(stop);
    const running = await new Promise<{ opsUrl: string }>((resolve, reject) => {
      const look = (d: Buffer) => {
        out += String(d);
        const line = out.split('\n').find((l) => l.includes('daemon running'));
        if (line) resolve(JSON.parse(line) as { opsUrl: string });
      };
      daemon.stdout.on('data', look);
      daemon.stderr.on('data', look);
      void closed.then((code) => reject(new Error(`the daemon exited (${code}) before running:\n${out}`)));
    });
    // Bound to every address, as in a container (the environment's host, not the file's default 127.0.0.1).
    expect(running.opsUrl).toBe(`http://0.0.0.0:${port}`);

    const ok = await health(config, env);
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(new RegExp(`^healthy: http://127\\.0\\.0\\.1:${port}/health answered 200 \\{"status":"ok",.*\\}\\n$`));

    // Beyond loopback /health needs the token: none found, the daemon refuses and the check fails.
    const refused = await health(config, { SEXTANT_HTTP_HOST: '0.0.0.0' });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(new RegExp(`^unhealthy: http://127\\.0\\.0\\.1:${port}/health answered 401 `));
    expect(refused.stderr).not.toContain(TOKEN);

    expect(await stop()).toBe(0);
    const gone = await health(config, env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`unhealthy: no daemon answers at http://127.0.0.1:${port}/health (ECONNREFUSED)\n`);
  }, 60_000);

  it('an answer other than 200 (an unhealthy daemon: 503): exit 1, the answer on one line', async () => {
    const port = await freePort();
    const config = configWithPort('unhealthy', port);
    const ops = new OpsServer(
      new Metrics(),
      { health: () => ({ ok: false, detail: { tickersAgeMs: 99_000 } }), ready: () => ({ ok: false, detail: {} }) },
      TOKEN,
    );
    await ops.listen(port, '127.0.0.1');
    stops.push(() => ops.close());
    const r = await health(config, {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`unhealthy: http://127.0.0.1:${port}/health answered 503 {"status":"unhealthy","tickersAgeMs":99000}\n`);
  });

  it('a config that cannot be read: exit 1, saying why', async () => {
    const r = await health(join(dir, 'missing.yaml'), {});
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^health: .*missing\.yaml.*cannot read file: ENOENT/s);
  });
});
