#!/usr/bin/env node
// Runs one TypeScript entry point (bench, scripts) through tsx: `node bin/run-ts.mjs FILE.ts [args…]`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const [file, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], resolve(file), ...rest];
await import(pathToFileURL(resolve(file)).href);
