// Types of scripts/test-deps.mjs, for the tests that import it.
export function findChromium(): string | undefined;
