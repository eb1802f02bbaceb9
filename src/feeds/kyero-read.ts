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
import type { KyeroProperty } from '../domain/kyero.ts';

export type { KyeroProperty };

/** The longest text kept of one element, characters (a description may hold 100,000). */
export const MAX_ELEMENT_TEXT = 200_000;

/**
 * Cuts every run of character data (text, CDATA, an attribute value, a comment) to one character
 * more than `limit` before it reaches the parser, which holds a run whole until it ends: a
 * 200 MB text node would otherwise be 200 MB of memory. The markup itself passes unchanged, so
 * the document stays what it was but for the cut runs (a reader sees they were too long).
 */
export class CharacterRunLimiter {
  private state: 'text' | 'open' | 'tag' | 'quoted' | 'cdata' | 'comment' | 'other' = 'text';
  /** The markup read after a `<` while telling what it opens (`![CDATA[`, `!--`, a tag…). */
  private opening = '';
  private quote = '';
  /** Characters of the current run, and how the current run's end marker is being matched. */
  private run = 0;
  private ending = '';

  constructor(private readonly limit: number) {}

  /** The part of `chunk` the parser is given. */
  push(chunk: string): string {
    let out = '';
    for (const c of chunk) {
      switch (this.state) {
        case 'text':
          if (c === '<') {
            this.state = 'open';
            this.opening = '';
            out += c;
          } else if (++this.run <= this.limit + 1) out += c;
          break;
        case 'open': {
          this.opening += c;
          out += c;
          if ('![CDATA['.startsWith(this.opening)) {
            if (this.opening === '![CDATA[') this.enter('cdata');
          } else if ('!--'.startsWith(this.opening)) {
            if (this.opening === '!--') this.enter('comment');
          } else this.state = c === '>' ? this.after() : c === '"' || c === "'" ? this.quoted(c) : 'tag';
          break;
        }
        case 'tag':
          out += c;
          if (c === '>') this.state = this.after();
          else if (c === '"' || c === "'") this.state = this.quoted(c);
          break;
        case 'quoted':
          if (c === this.quote) {
            this.state = 'tag';
            out += c;
          } else if (++this.run <= this.limit + 1) out += c;
          break;
        case 'cdata':
        case 'comment': {
          // A comment's words are never needed: dropped whole. A CDATA section is cut like text;
          // past the cut, only its end marker passes (a `]` more inside CDATA is harmless).
          const end = this.state === 'cdata' ? ']]>' : '-->';
          this.ending = (this.ending + c).slice(-3);
          const kept = this.state === 'cdata' && ++this.run <= this.limit + 1;
          if (kept) out += c;
          if (this.ending === end) {
            if (!kept) out += this.state === 'cdata' ? ']]>' : '-->';
            else if (this.state === 'comment') out += '-->';
            this.state = this.after();
          }
          break;
        }
        default:
          out += c;
      }
    }
    return out;
  }

  private enter(state: 'cdata' | 'comment') {
    this.state = state;
    this.run = 0;
    this.ending = '';
  }

  private quoted(quote: string): 'quoted' {
    this.quote = quote;
    this.run = 0;
    return 'quoted';
  }

  private after(): 'text' {
    this.run = 0;
    return 'text';
  }
}

/** A document that cannot be read as a Kyero feed at all (nothing after the fault is read). */
export class KyeroDocumentError extends Error {}

/**
 * The properties of a Kyero v3 document, as they are read.
 * @param input the document's bytes (UTF-8; a BOM is dropped).
 * @throws KyeroDocumentError for a DTD, malformed XML (with its line and column), or a root that
 *   is not `<root>` (nothing of the document after the fault is read).
 */
export async function* readKyeroFeed(input: Readable): AsyncGenerator<KyeroProperty> {
  const parser = new SaxesParser({ position: true });
  const ready: KyeroProperty[] = [];
  const path: string[] = [];
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
    const name = path.pop();
    if (!property) return;
    if (path.length === 0 && name === 'property') {
      ready.push(property);
      property = null;
      return;
    }
    const key = [...path.slice(1), name].join('/');
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
      while (ready.length) yield ready.shift()!;
    }
    if (empty) throw new KyeroDocumentError('the document is empty: no <root> element');
    parser.write(limiter.push(decoder.decode()));
    parser.close();
  } catch (error) {
    if (error instanceof KyeroDocumentError) throw error;
    throw failure ?? new KyeroDocumentError(`the document is not well-formed XML (${(error as Error).message})`);
  }
  while (ready.length) yield ready.shift()!;
  if (!rootSeen) throw new KyeroDocumentError('the document is empty: no <root> element');
}
