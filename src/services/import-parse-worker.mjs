// The parser thread of a catalogue import (services/import-parser.ts): parses chunks of lines
// with services/import-line.ts and answers each with its results, in order. The sources are
// TypeScript run through tsx, registered here as bin/inmo.mjs does for the main thread.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { parseImportLine } = await import('./import-line.ts');
parentPort.on('message', ({ id, texts, now }) => {
  parentPort.postMessage({ id, parsed: texts.map((text) => parseImportLine(text, now)) });
});
