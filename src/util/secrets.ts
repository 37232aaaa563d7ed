// The registry of secret values (key, secret, passphrase, URL passwords) and the scrubber every log line and
// error text passes; credentials inside URLs (`https://user:pass@host`) are redacted wherever a URL is shown.
const REDACTED = '[redacted]';
const known = new Set<string>();

// Auth headers echoed back in a body or an error text: their values go, whatever they are.
const HEADER_RE = /((?:ACCESS[-_](?:SIGN|KEY|PASSPHRASE)|authorization)["']?\s*[:=]\s*["']?(?:(?:basic|bearer)\s+)?)([^"',\s}&]+)/gi;

// The user information of a URL: after `scheme://`, up to the last `@` before the host ends.
const URL_USERINFO_RE = /([a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'<>\\]*@/gi;

/** Registers a secret: its raw, Base64, hex and URL-encoded forms are scrubbed from then on. */
export function registerSecret(value: string | undefined): void {
  if (!value || value.length < 4) return;
  known.add(value);
  known.add(Buffer.from(value, 'utf8').toString('base64').replace(/=+$/, ''));
  known.add(Buffer.from(value, 'utf8').toString('hex'));
  // In a URL's query or path (a sign-in link), in both cases of its escapes.
  const encoded = encodeURIComponent(value);
  if (encoded !== value) {
    known.add(encoded);
    known.add(encoded.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()));
  }
}

/**
 * Registers the password of a URL (`https://user:pass@host`) as a secret, and `user:pass` (whose Base64 form is
 * the Basic authorization header sent with it). Not a URL, or none in it: nothing.
 */
export function registerUrlCredentials(url: string | undefined): void {
  if (!url) return;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return;
  }
  if (!u.password) return;
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const password = decode(u.password);
  registerSecret(password);
  registerSecret(`${decode(u.username)}:${password}`);
}

/** Replaces the user information of every URL in `text` (`https://[redacted]@host/...`). */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO_RE, `$1${REDACTED}@`);
}

export function scrubSecrets(text: string): string {
  let out = redactUrlCredentials(text.replace(HEADER_RE, `$1${REDACTED}`));
  for (const s of known) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
