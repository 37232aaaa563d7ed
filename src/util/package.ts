// This package on disk: its root folder (the same from dist/ and from src/, each two levels down) and its version,
// read once from its package.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package's own package.json, as a URL (`sextant/...` imports resolve from it, as a self-reference). */
export const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** The package's root folder, ending with a separator. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The package's package.json, read once. */
export const PACKAGE = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string; devDependencies?: Record<string, string> };

/** The package's version (`sextant --version`, /api/v1/status, the backtest report). */
export const VERSION: string = PACKAGE.version;
