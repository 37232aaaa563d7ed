// The scrubber: credentials inside URLs, authorization headers echoed in text, registered secrets in their forms.
import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from '../../../src/util/logger.js';
import { redactUrlCredentials, registerUrlCredentials, scrubSecrets } from '../../../src/util/secrets.js';

describe('credentials inside URLs', () => {
  it('the user information of every URL in a text is redacted, the rest of the URL kept', () => {
    expect(redactUrlCredentials('https://urluser:urlpass@api.example.com/v2?x=1')).toBe('https://[redacted]@api.example.com/v2?x=1');
    expect(redactUrlCredentials('a token alone: https://ghp_tok3n@host and redis://:rpass@10.0.0.1:6379/0')).toBe(
      'a token alone: https://[redacted]@host and redis://[redacted]@10.0.0.1:6379/0',
    );
    // Up to the last @ before the host: a raw @ in the password does not leave its tail behind.
    expect(redactUrlCredentials('http://u:p@ss@h:1')).toBe('http://[redacted]@h:1');
    // In JSON: a URL without a path does not swallow the fields after it.
    expect(redactUrlCredentials('{"url":"https://u:p@h","mail":"a@b.c"}')).toBe('{"url":"https://[redacted]@h","mail":"a@b.c"}');
  });

  it('URLs without credentials and e-mail addresses are left alone', () => {
    const text = 'https://api.example.com/v2/a@b?mail=c@d.e user@example.com';
    expect(redactUrlCredentials(text)).toBe(text);
  });

  it('scrubSecrets redacts them, so every log line does', () => {
    const lines: string[] = [];
    const logger = createLogger({ destination: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) as never });
    logger.info({ baseUrl: 'https://loguser:logpass@venue.example' }, 'connecting to https://loguser:logpass@venue.example');
    expect(lines.join('')).toContain('https://[redacted]@venue.example');
    expect(lines.join('')).not.toMatch(/loguser|logpass/);
    expect(scrubSecrets('GET https://u1:p1@h/x failed')).toBe('GET https://[redacted]@h/x failed');
  });

  it('a registered URL password is scrubbed wherever it appears, and so is the Basic header sent with it', () => {
    registerUrlCredentials('https://regus3r:s3cr%40tpass@venue.example');
    const basic = Buffer.from('regus3r:s3cr@tpass').toString('base64');
    expect(scrubSecrets('the venue said: wrong password s3cr@tpass')).toBe('the venue said: wrong password [redacted]');
    expect(scrubSecrets(`echo ${basic}`)).toBe('echo [redacted]');
    registerUrlCredentials('not a url');
    registerUrlCredentials('https://nopass@venue.example');
    registerUrlCredentials(undefined);
  });

  it('an authorization header echoed in a text loses its value', () => {
    expect(scrubSecrets('{"Authorization":"Basic dXNlcjpwYXNz"}')).toBe('{"Authorization":"Basic [redacted]"}');
    expect(scrubSecrets('authorization: Bearer abc.def')).toBe('authorization: Bearer [redacted]');
    expect(scrubSecrets('ACCESS-KEY=xyz')).toBe('ACCESS-KEY=[redacted]');
  });
});
