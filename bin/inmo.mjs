#!/usr/bin/env node
// The `inmo` operator CLI (CONTRACT §9). The sources are TypeScript run through tsx, so
// `npx inmo …` works right after `npm install` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
