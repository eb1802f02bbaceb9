#!/usr/bin/env node
// The `inmo` operator CLI (CONTRACT §9). It runs the compiled JavaScript of dist/, which
// `npm install` writes (scripts/build.mjs); when the sources were edited since, it compiles them
// again first (esbuild, about a second), so a developer never runs stale code.
import { build, isStale, MAIN_PATH } from '../scripts/build.mjs';
import { pathToFileURL } from 'node:url';

if (isStale()) await build();
await import(pathToFileURL(MAIN_PATH).href);
