/**
 * HTML through import and the API (CONTRACT §5, issue 6): a corpus of XSS vectors in
 * descriptions and titles. The output keeps the allowed formatting, carries nothing
 * executable, and cleaning it again changes nothing.
 */
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { plainText, sanitizeDescription } from '../../../src/domain/catalogue/html.ts';
import { importRecords, listing } from '../../helpers/db.ts';
import { get, withApp, API_ONLY } from '../../helpers/http.ts';

/** Vectors from the usual filter-evasion cheat sheets, as agencies' HTML might carry them. */
const VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//xss.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<img src=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<body onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<a href="javascript:alert(1)">clic</a>',
  '<a href="jav&#x09;ascript:alert(1)">clic</a>',
  '<a href=" javascript:alert(1)">clic</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">clic</a>',
  '<a href="vbscript:msgbox(1)">clic</a>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '<p style="color:red" onclick="alert(1)">x</p>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel=stylesheet href="javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<details open ontoggle=alert(1)>',
  '<video><source onerror="alert(1)"></video>',
  '"><script>alert(1)</script>',
  '<<script>script>alert(1)<</script>/script>',
  '&lt;img src=x onerror=alert(1)&gt;',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<style>@import "javascript:alert(1)";</style>',
  '<template><script>alert(1)</script></template>',
  // Entities nested 52 deep: more layers than plainText decodes (titles hold 500 characters).
  `&${'amp;'.repeat(52)}lt;img src=x onerror=alert(1)&${'amp;'.repeat(52)}gt;`,
];

/** What the description allowlist lets through (domain/catalogue/html.ts); everything else is a finding. */
const ALLOWED_TAGS = new Set(['p', 'br', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'h2', 'h3', 'h4', 'blockquote', 'a', 'span']);
const ALLOWED_ATTRIBUTES = new Set(['href', 'title', 'rel', 'target']);

/** What a browser would parse out of `html` that could run: disallowed elements, attributes or link schemes. */
function executableParts(html: string): string[] {
  const found: string[] = [];
  const parser = new Parser({
    onopentag(name, attributes) {
      if (!ALLOWED_TAGS.has(name)) found.push(`<${name}>`);
      for (const [attribute, value] of Object.entries(attributes)) {
        if (!ALLOWED_ATTRIBUTES.has(attribute)) found.push(`${name}[${attribute}]`);
        if (attribute === 'href' && !/^(https?:|mailto:|tel:)/i.test(value.trim())) found.push(`href=${value}`);
      }
    },
  });
  parser.write(html);
  parser.end();
  return found;
}

/** Raw-text elements left open swallow what follows them, as a browser would. */
const swallowsRest = (vector: string) => /<(style|script|template|noscript|textarea|xmp)\b[^>]*>(?![\s\S]*<\/\1>)/i.test(vector);

let db: Db;
let key: string;
let businessId: number;

const t = withApp({
  surfaces: API_ONLY,
  seed: async (opened) => {
    ({ db, key, businessId } = opened);
    await importRecords(
      db,
      businessId,
      VECTORS.map((vector, i) =>
        listing(`xss-${i}`, {
          title: `Piso ${vector} céntrico`,
          description: `<p>Luminoso <b>piso</b> con <a href="https://example.com/plano">plano</a>.</p>${vector}<ul><li>Terraza</li></ul>`,
          images: [{ url: `https://img.example/${i}.jpg`, order: 1, is_primary: true, title: vector, public: true }],
          updated_at: `2026-01-01T10:${String(i).padStart(2, '0')}:00+00:00`,
        }),
      ),
    );
  },
});

describe('every vector, imported and read back through GET /properties/{id}', () => {
  it.each(VECTORS.map((v, i) => [i, v] as const))('%i: %s', async (i, vector) => {
    const id = (await db.selectFrom('properties').select('id').where('external_ref', '=', `xss-${i}`).executeTakeFirstOrThrow()).id;
    const { status, body } = await get(t.app, `/properties/${id}`, key);
    expect(status).toBe(200);
    const { description, title, images } = body.data as { description: string; title: string; images: Array<{ title: string }> };

    expect(executableParts(description)).toEqual([]);
    // Titles are plain text: not a single element.
    expect(executableParts(title).concat(executableParts(images[0].title ?? ''))).toEqual([]);
    expect(title).not.toMatch(/<[a-z!/?]/i);
    // The allowed formatting survives around the vector.
    expect(description).toContain(
      '<p>Luminoso <b>piso</b> con <a href="https://example.com/plano" rel="noopener noreferrer nofollow">plano</a>.</p>',
    );
    if (!swallowsRest(vector)) expect(description).toContain('<ul><li>Terraza</li></ul>');
    expect(title.startsWith('Piso ')).toBe(true);
    if (!swallowsRest(vector)) expect(title.endsWith(' céntrico')).toBe(true);
    // Cleaning again changes nothing.
    expect(sanitizeDescription(description)).toBe(description);
    expect(plainText(title)).toBe(title);
  });
});

it('plain text keeps ordinary characters readable', () => {
  expect(plainText('Pisos &amp; Casas: 3 < 4 > 2 "centro"')).toBe('Pisos & Casas: 3 < 4 > 2 "centro"');
  expect(plainText('Ático <b>con</b> terraza')).toBe('Ático con terraza');
  expect(plainText(null)).toBeNull();
});
