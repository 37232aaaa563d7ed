// The Dockerfile and compose file, checked offline (no Docker engine here): the linters pass, and the paths,
// port and user they rely on are the ones the daemon really uses.
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { Metrics, OpsServer } from '../../src/app/http.js';
import { loadConfig } from '../../src/config/load.js';

const run = (bin: string, args: string[]) => execFileSync(`node_modules/.bin/${bin}`, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('Dockerfile', () => {
  const text = readFileSync('Dockerfile', 'utf8');
  it('passes dockerfile-utils lint', () => {
    expect(() => run('dockerfile-utils', ['lint', 'Dockerfile'])).not.toThrow();
  });
  it('runs as node under tini, checks /health on the configured port, writes only to the data volume', () => {
    const cfg = loadConfig('config/default.yaml', {}).config;
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/ENTRYPOINT \["\/usr\/bin\/tini", "--", "node", "bin\/sextant.js"\]/);
    expect(text).toContain(`http://127.0.0.1:${cfg.daemon.http.port}/health`);
    expect(text).toMatch(/VOLUME \["\/app\/data"\]/);
    expect(cfg.journal.path).toMatch(/^data\//);
    expect(loadConfig('config/live.example.yaml', {}).config.journal.path).toMatch(/^data\//);
  });
  it('the health check passes against the daemon bound beyond loopback, sending the token from the environment', async () => {
    const cfg = loadConfig('config/default.yaml', {}).config;
    const cmd = JSON.parse(/^\s*CMD (\["node", "-e", .*\])$/m.exec(text)![1]!) as string[];
    const ops = new OpsServer(new Metrics(), { health: () => ({ ok: true, detail: {} }), ready: () => ({ ok: true, detail: {} }) }, 'hc-token-0123456789ab');
    const port = new URL(await ops.listen(0, '0.0.0.0')).port;
    try {
      const script = cmd[2]!.replace(`127.0.0.1:${cfg.daemon.http.port}/`, `127.0.0.1:${port}/`);
      const check = (env: Record<string, string>) =>
        new Promise<unknown>((resolve) =>
          execFile(process.execPath, ['-e', script], { env: { PATH: process.env.PATH, ...env } }, (err) => resolve(err ? err.code : 0)),
        );
      expect(await check({ [cfg.daemon.http.tokenEnv]: 'hc-token-0123456789ab' })).toBe(0);
      expect(await check({})).toBe(1);
    } finally {
      await ops.close();
    }
  });
});

describe('docker-compose.yml', () => {
  it('passes dclint (compose spec)', () => {
    expect(() => run('dclint', ['docker-compose.yml'])).not.toThrow();
  });
  it('read-only root, config mounted read-only, a data volume, secrets as files, optional redis', () => {
    const c = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, Record<string, unknown>> };
    const bot = c.services.sextant!;
    expect(bot.read_only).toBe(true);
    expect(bot.volumes).toEqual(expect.arrayContaining(['./config:/app/config:ro', 'sextant-data:/app/data']));
    expect(bot.environment).toMatchObject({ SEXTANT_API_SECRET_FILE: '/run/secrets/sextant_api_secret' });
    expect(JSON.stringify(bot)).not.toMatch(/SEXTANT_API_SECRET"?:\s*"?[^/]/);
    expect(c.services.redis!.profiles).toEqual(['shared-budget', 'failover']);
    expect(bot.cap_drop).toEqual(['ALL']);
  });
  it('one profile at a time: `single` by default, or the `failover` pair (active and standby) with PostgreSQL and Redis', () => {
    const c = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, Record<string, unknown>> };
    expect(readFileSync('.env', 'utf8')).toMatch(/^COMPOSE_PROFILES=single$/m);
    const byProfile = (p: string) =>
      Object.entries(c.services)
        .filter(([, s]) => (s.profiles as string[]).includes(p))
        .map(([n]) => n)
        .sort();
    expect(byProfile('single')).toEqual(['sextant']);
    expect(byProfile('failover')).toEqual(['postgres', 'redis', 'sextant-a', 'sextant-b']);
    const [a, b] = [c.services['sextant-a']!, c.services['sextant-b']!];
    // The same daemon twice, told apart only by the host name (the holder's name in the lease).
    expect({ ...a, hostname: undefined }).toEqual({ ...b, hostname: undefined });
    expect([a.hostname, b.hostname]).toEqual(['sextant-a', 'sextant-b']);
    expect(a).toMatchObject({
      read_only: true,
      cap_drop: ['ALL'],
      depends_on: { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } },
    });
    const command = a.command as string[];
    expect(command.slice(0, 2)).toEqual(['run', '--config']);
    // The config they run: the journal in the compose file's PostgreSQL, the lease beside it, the budget in its Redis;
    // the database password from a secret file, never in the URL.
    const cfg = loadConfig(command[2]!, {}).config;
    expect({ url: cfg.journal.url, lease: cfg.daemon.lease?.store, redis: cfg.exchange.rateLimit.redis?.url }).toEqual({
      url: 'postgres://sextant@postgres:5432/sextant',
      lease: 'journal',
      redis: 'redis://redis:6379',
    });
    expect(a.environment).toMatchObject({ SEXTANT_JOURNAL_PASSWORD_FILE: '/run/secrets/sextant_journal_password' });
    expect(c.services.postgres!.environment).toMatchObject({
      POSTGRES_USER: 'sextant',
      POSTGRES_DB: 'sextant',
      POSTGRES_PASSWORD_FILE: '/run/secrets/sextant_journal_password',
    });
    expect((c.services.postgres!.healthcheck as { test: string[] }).test).toEqual(['CMD', 'pg_isready', '-U', 'sextant', '-d', 'sextant']);
  });
  it('a tmpfs on /tmp beside the read-only root, for libraries that want a writable temp dir', () => {
    const c = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as { services: Record<string, { tmpfs?: string[] }> };
    expect(c.services.sextant!.tmpfs).toEqual([expect.stringMatching(/^\/tmp(:|$)/)]);
  });
});
