/**
 * Reading a Kyero v3 feed (CONTRACT §15) as a stream: each `<property>` as it closes, with the
 * texts of its elements by path (`price`, `location/latitude`, `desc/es`…), never the whole
 * document in memory. Parsed by saxes, a well-kept SAX parser that reads no DTD and expands no
 * entity but XML's five; a document that declares a DTD is refused outright (it is how external
 * entities and entity bombs arrive), and a text longer than any field is cut, the property
 * rejected, so a 200 MB text node costs no memory.
 */
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import type { KyeroProperty } from '../domain/catalogue/kyero-import-line.ts';

export type { KyeroProperty };

/** The longest text kept of one element, characters (a description may hold 100,000). */
export const MAX_ELEMENT_TEXT = 200_000;

/**
 * Cuts every run of character data (text, CDATA, an attribute value, a comment) to one character
 * more than `limit` before it reaches the parser, which holds a run whole until it ends: a
 * 200 MB text node would otherwise be 200 MB of memory. The markup itself passes unchanged, so
 * the document stays what it was but for the cut runs (a reader sees they were too long).
 */
/** What ends a tag's markup, or opens an attribute value in it. */
const TAG_END = /[>"']/g;

export class CharacterRunLimiter {
  private state: 'text' | 'open' | 'tag' | 'quoted' | 'cdata' | 'comment' = 'text';
  /** The markup read after `<!` while telling what it opens (`![CDATA[`, `!--`, a declaration). */
  private opening = '';
  private quote = '';
  /** Characters of the current run so far. */
  private run = 0;
  /** Characters held back at a chunk's end that may begin a section's end marker (`]`, `]]`, `-`, `--`). */
  private held = '';
  /** The output of the chunk being pushed, in pieces, once it differs from the chunk (null: the chunk as it is). */
  private pieces: string[] | null = null;
  /** Where the part of the chunk not yet put in {@link pieces} begins. */
  private from = 0;

  constructor(private readonly limit: number) {}

  /** Up to the limit of the current run, the characters `text` adds to it. */
  private take(text: string): string {
    const room = this.limit + 1 - this.run;
    this.run += text.length;
    return room <= 0 ? '' : text.length <= room ? text : text.slice(0, room);
  }

  /** Leaves `chunk[start..end)` out of the output, `insert` in its place. */
  private replace(chunk: string, start: number, end: number, insert = ''): void {
    (this.pieces ??= []).push(chunk.slice(this.from, start));
    if (insert !== '') this.pieces.push(insert);
    this.from = end;
  }

  /** The run goes on over `chunk[start..end)`: what passes the limit is left out. */
  private extend(chunk: string, start: number, end: number): void {
    const room = this.limit + 1 - this.run;
    this.run += end - start;
    const keptTo = start + Math.max(0, Math.min(room, end - start));
    if (keptTo < end) this.replace(chunk, keptTo, end);
  }

  /**
   * The part of `chunk` the parser is given: the chunk itself unless a run in it is cut. Runs
   * are found with `indexOf` and a regular expression, not character by character.
   */
  push(chunk: string): string {
    this.pieces = null;
    this.from = 0;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case 'text': {
          const lt = chunk.indexOf('<', i);
          const end = lt < 0 ? n : lt;
          this.extend(chunk, i, end);
          i = end;
          if (lt >= 0) {
            i++;
            this.state = 'open';
            this.opening = '';
          }
          break;
        }
        case 'open': {
          const c = chunk[i++];
          // A tag (`<a`, `</a`): straight on to its end. Only `<!` needs telling what it opens.
          if (this.opening === '' && c !== '!') {
            if (c === '>') this.enter('text');
            else if (c === '"' || c === "'") this.quoted(c);
            else this.state = 'tag';
            break;
          }
          this.opening += c;
          if ('![CDATA['.startsWith(this.opening)) {
            if (this.opening === '![CDATA[') this.enter('cdata');
          } else if ('!--'.startsWith(this.opening)) {
            if (this.opening === '!--') this.enter('comment');
          } else if (c === '>') this.enter('text');
          else if (c === '"' || c === "'") this.quoted(c);
          else this.state = 'tag';
          break;
        }
        case 'tag': {
          TAG_END.lastIndex = i;
          const found = TAG_END.exec(chunk);
          if (!found) {
            i = n;
            break;
          }
          i = found.index + 1;
          if (found[0] === '>') this.enter('text');
          else this.quoted(found[0]);
          break;
        }
        case 'quoted': {
          const q = chunk.indexOf(this.quote, i);
          const end = q < 0 ? n : q;
          this.extend(chunk, i, end);
          i = end;
          if (q >= 0) {
            i++;
            this.state = 'tag';
          }
          break;
        }
        case 'cdata':
        case 'comment': {
          // A comment's words are never needed: dropped whole. A CDATA section is cut like text.
          const cdata = this.state === 'cdata';
          const marker = cdata ? ']]>' : '-->';
          if (this.held !== '') {
            // Held back at the last chunk's end: the end marker's beginning, or the section's words.
            const held = this.held;
            this.held = '';
            const at = (held + chunk.slice(i, i + 2)).indexOf(marker);
            if (at >= 0 && at < held.length) {
              const end = i + at + 3 - held.length;
              this.replace(chunk, i, end, (cdata ? this.take(held.slice(0, at)) : '') + marker);
              i = end;
              this.enter('text');
              break;
            }
            if (n - i < 2) {
              // Too short to tell: all of it may still begin the marker.
              const text = held + chunk.slice(i);
              const keep = trailing(text, marker[0]);
              this.replace(chunk, i, n, cdata ? this.take(text.slice(0, text.length - keep)) : '');
              this.held = text.slice(text.length - keep);
              i = n;
              break;
            }
            if (cdata) this.replace(chunk, i, i, this.take(held));
          }
          const at = chunk.indexOf(marker, i);
          if (at >= 0) {
            if (cdata) this.extend(chunk, i, at);
            else if (at > i) this.replace(chunk, i, at);
            i = at + 3;
            this.enter('text');
            break;
          }
          // No end here: hold back what may be its beginning, for the next chunk.
          const keep = Math.min(trailing(chunk, marker[0]), n - i);
          if (cdata) {
            this.extend(chunk, i, n - keep);
            if (keep > 0) this.replace(chunk, n - keep, n);
          } else this.replace(chunk, i, n);
          this.held = chunk.slice(n - keep);
          i = n;
          break;
        }
      }
    }
    // (Set by the methods called above: TypeScript cannot see it.)
    const pieces = this.pieces as string[] | null;
    if (pieces === null) return chunk;
    pieces.push(chunk.slice(this.from));
    return pieces.join('');
  }

  private enter(state: 'text' | 'cdata' | 'comment') {
    this.state = state;
    this.run = 0;
    this.held = '';
  }

  private quoted(quote: string) {
    this.state = 'quoted';
    this.quote = quote;
    this.run = 0;
  }
}

/** How many of `text`'s last two characters are `c` at its very end (0, 1 or 2). */
function trailing(text: string, c: string): number {
  const n = text.length;
  return n >= 2 && text[n - 2] === c && text[n - 1] === c ? 2 : n >= 1 && text[n - 1] === c ? 1 : 0;
}

/** A document that cannot be read as a Kyero feed at all (nothing after the fault is read). */
export class KyeroDocumentError extends Error {
  override name = 'KyeroDocumentError';
}

/**
 * The properties of a Kyero v3 document, as they are read.
 * @param input the document's bytes (UTF-8; a BOM is dropped).
 * @throws KyeroDocumentError for a DTD, malformed XML (with its line and column), or a root that
 *   is not `<root>` (the properties closed before the fault are given first; nothing after it is read).
 */
export async function* readKyeroFeed(input: Readable): AsyncGenerator<KyeroProperty> {
  const parser = new SaxesParser({ position: true });
  const ready: KyeroProperty[] = [];
  /** Where in the document (characters) each property of `ready` closed, and where it stopped being XML. */
  const closedAt: number[] = [];
  let failedAt = Number.POSITIVE_INFINITY;
  const path: string[] = [];
  /** The path of each open element below the property, joined: `keys[i]` for `path[0..i]` (`keys[1]` = `price`). */
  const keys: string[] = [''];
  let property: KyeroProperty | null = null;
  let positions = 0;
  let text = '';
  let rootSeen = false;
  let image: { id: string | null; url: string | null } | null = null;
  let failure: Error | null = null;

  parser.on('doctype', () => {
    throw new KyeroDocumentError('the document declares a DTD (<!DOCTYPE …>), which a feed never needs: refused, nothing of it is read');
  });
  parser.on('opentag', (tag) => {
    if (!rootSeen) {
      rootSeen = true;
      if (tag.name !== 'root') throw new KyeroDocumentError(`the document's root is <${tag.name}>, not a Kyero v3 <root>`);
      return;
    }
    path.push(tag.name);
    keys[path.length - 1] = path.length === 2 ? tag.name : path.length > 2 ? `${keys[path.length - 2]}/${tag.name}` : '';
    text = '';
    if (path.length === 1 && tag.name === 'property') {
      property = { position: ++positions, texts: new Map(), descLanguages: [], features: [], images: [], overlong: null };
    } else if (property && path.length === 3 && path[1] === 'images' && tag.name === 'image') {
      const id = tag.attributes.id;
      image = { id: typeof id === 'string' ? id.trim() : null, url: null };
    }
  });
  const onText = (chunk: string) => {
    // Only texts inside a property are kept, and no longer than any field can be.
    if (!property || path.length < 2) return;
    if (text.length + chunk.length > MAX_ELEMENT_TEXT) {
      property.overlong ??= path.slice(1).join('/');
      text = text.slice(0, MAX_ELEMENT_TEXT);
      return;
    }
    text += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const key = keys[path.length - 1];
    const name = path.pop();
    if (!property) return;
    if (path.length === 0 && name === 'property') {
      ready.push(property);
      closedAt.push(parser.position);
      property = null;
      return;
    }
    const value = text.trim();
    text = '';
    if (key === 'features/feature') {
      if (value) property.features.push(value);
    } else if (key === 'images/image/url') {
      if (image && image.url === null) image.url = value || null;
    } else if (key === 'images/image') {
      if (image) property.images.push(image);
      image = null;
    } else if (!property.texts.has(key)) {
      // Repeated elements: the first wins.
      property.texts.set(key, value);
      if (path.length === 2 && path[1] === 'desc' && value) property.descLanguages.push(name!);
    }
  });
  parser.on('error', (error) => {
    failedAt = parser.position;
    failure = new KyeroDocumentError(`the document is not well-formed XML (${error.message})`);
    throw failure;
  });

  const decoder = new TextDecoder('utf-8', { ignoreBOM: false });
  const limiter = new CharacterRunLimiter(MAX_ELEMENT_TEXT);
  let empty = true;
  try {
    for await (const chunk of input) {
      const decoded = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
      if (empty && decoded.trim() !== '') empty = false;
      parser.write(limiter.push(decoded));
      while (ready.length) {
        closedAt.shift();
        yield ready.shift()!;
      }
    }
    if (empty) throw new KyeroDocumentError('the document is empty: no <root> element');
    parser.write(limiter.push(decoder.decode()));
    parser.close();
  } catch (error) {
    // The properties that closed before the fault are given first, whatever the chunk it fell in
    // (not one closed by the faulty tag itself).
    while (ready.length && closedAt.shift()! < failedAt) yield ready.shift()!;
    if (error instanceof KyeroDocumentError) throw error;
    // Not the parser's: the input's own error (a file that cannot be read), as it is.
    throw failure ?? error;
  }
  while (ready.length) yield ready.shift()!;
  if (!rootSeen) throw new KyeroDocumentError('the document is empty: no <root> element');
}
