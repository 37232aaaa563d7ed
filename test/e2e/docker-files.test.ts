// The Dockerfile and compose file, checked offline (no Docker engine here): the linters pass, and the paths,
// port and user they rely on are the ones the daemon really uses.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
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
    expect(cfg.journal.path.startsWith('data/')).toBe(true);
    expect(loadConfig('config/live.example.yaml', {}).config.journal.path.startsWith('data/')).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  it('passes dclint (compose spec)', () => {
    expect(() => run('dclint', ['docker-compose.yml'])).not.toThrow();
  });
  it('read-only root, config mounted read-only, a data volume, secrets as files, optional redis', () => {
    const c = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Record<string, unknown>> };
    const bot = c.services.sextant!;
    expect(bot.read_only).toBe(true);
    expect(bot.volumes).toEqual(expect.arrayContaining(['./config:/app/config:ro', 'sextant-data:/app/data']));
    expect(bot.environment).toMatchObject({ SEXTANT_API_SECRET_FILE: '/run/secrets/sextant_api_secret' });
    expect(JSON.stringify(bot)).not.toMatch(/SEXTANT_API_SECRET"?:\s*"?[^/]/);
    expect(c.services.redis!.profiles).toEqual(['shared-budget']);
    expect(bot.cap_drop).toEqual(['ALL']);
  });
});
