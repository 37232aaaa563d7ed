// Writes docs/config.md, the configuration reference, from the schema (`npm run docs:config`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { configReference } from '../src/config/reference.js';

mkdirSync('docs', { recursive: true });
writeFileSync('docs/config.md', configReference());
process.stdout.write('docs/config.md written\n');
