// Where the daemon commands look for the daemon: --url, else the config's daemon.http (an unspecified address
// reached on loopback); the token from --token, else the config's token variable.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { DaemonClient, table } from '../../../../src/app/commands/daemon-client.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-daemon-client-'));

describe('DaemonClient.from', () => {
  it('takes the config\'s host and port, an unspecified address as loopback; --url wins', () => {
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, 'daemon: { http: { host: 0.0.0.0, port: 9555, tokenEnv: MY_TOKEN } }\n');
    expect(DaemonClient.from({ config: cfg }, {}).baseUrl).toBe('http://127.0.0.1:9555');
    writeFileSync(cfg, 'daemon: { http: { host: "::", port: 9556 } }\n');
    expect(DaemonClient.from({ config: cfg }, {}).baseUrl).toBe('http://[::1]:9556');
    expect(DaemonClient.from({ config: cfg, url: 'http://10.0.0.5:9000/' }, {}).baseUrl).toBe('http://10.0.0.5:9000');
    // With both --url and --token, no config is read at all.
    expect(DaemonClient.from({ config: join(dir, 'missing.yaml'), url: 'http://127.0.0.1:1', token: 't' }, {}).baseUrl).toBe('http://127.0.0.1:1');
  });
});

describe('table', () => {
  it('aligns columns under their headers', () => {
    expect(table(['id', 'state'], [['mm-btc', 'paused'], ['g', 'running']])).toBe('id      state\nmm-btc  paused\ng       running');
  });
});
