// SEXTANT_HTTP_HOST replaces daemon.http.host (a container binds 0.0.0.0 to publish its port), leaving the rest of
// daemon.http as the file wrote it.
import { describe, expect, it } from '@jest/globals';
import { HTTP_HOST_VAR, parseConfig } from '../../../src/config/load.js';

describe('SEXTANT_HTTP_HOST', () => {
  it('replaces the host the file wrote, keeping its port and token settings', () => {
    const text = 'daemon:\n  http: { host: 127.0.0.1, port: 9470, tokenEnv: OPS_TOKEN }\n';
    expect(parseConfig(text, 'cfg.yaml', {}).config.daemon.http).toMatchObject({ host: '127.0.0.1', port: 9470, tokenEnv: 'OPS_TOKEN' });
    expect(parseConfig(text, 'cfg.yaml', { [HTTP_HOST_VAR]: '0.0.0.0' }).config.daemon.http).toMatchObject({
      host: '0.0.0.0',
      port: 9470,
      tokenEnv: 'OPS_TOKEN',
    });
  });

  it('sets the host of a file that writes no daemon section; empty, it changes nothing', () => {
    expect(HTTP_HOST_VAR).toBe('SEXTANT_HTTP_HOST');
    expect(parseConfig('', 'cfg.yaml', { SEXTANT_HTTP_HOST: '0.0.0.0' }).config.daemon.http).toMatchObject({ host: '0.0.0.0', port: 9464 });
    expect(parseConfig('daemon:\n', 'cfg.yaml', { SEXTANT_HTTP_HOST: '::' }).config.daemon.http.host).toBe('::');
    expect(parseConfig('', 'cfg.yaml', { SEXTANT_HTTP_HOST: '' }).config.daemon.http.host).toBe('127.0.0.1');
  });
});
