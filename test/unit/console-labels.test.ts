/**
 * Plain words in the console (issue 29, CONTRACT §16): every value the console shows — lead
 * statuses and types, listing statuses, key states… — has a label in both languages, so no page
 * shows a raw code; and no template builds a message key at runtime (issue 42): each goes
 * through a typed mapping of labels.ts, which the compiler checks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CRITERIA, describeSearch } from '../../src/http/console/criteria.ts';
import { DICTIONARIES, translator } from '../../src/http/console/i18n.ts';
import { LABELS, labeller } from '../../src/http/console/labels.ts';
import { LEAD_STATUSES, LEAD_TYPES } from '../../src/domain/leads/rules.ts';
import { ADDRESS_PRIVACY, OPERATIONS, PROPERTY_STATUSES, PROPERTY_TYPES, RENTAL_TYPES } from '../../src/domain/catalogue/terms.ts';
import { SCOPES } from '../../src/domain/access/api-key.ts';
import { VIEWING_ACTIONS, VIEWING_SOURCES, VIEWING_STATUSES } from '../../src/domain/viewings/status.ts';
import { ROLES } from '../../src/services/access/console-users.ts';
import { AUDIT_ACTIONS } from '../../src/services/access/audit.ts';
import { STATUS_MOVES } from '../../src/services/catalogue/listings.ts';
import { REPO_ROOT } from '../helpers/db.ts';

const VIEWS = join(REPO_ROOT, 'src', 'http', 'console', 'views');

/** The first argument of every `it.t(…)` call of a template, as written. */
function translatedKeys(template: string): string[] {
  const found: string[] = [];
  for (let at = template.indexOf('it.t('); at !== -1; at = template.indexOf('it.t(', at + 1)) {
    let depth = 0;
    let quote: string | null = null;
    let end = at + 'it.t('.length;
    for (; end < template.length; end++) {
      const c = template[end];
      if (quote) {
        if (c === quote) quote = null;
      } else if (c === "'" || c === '"' || c === '`') quote = c;
      else if (c === '(' || c === '{' || c === '[') depth++;
      else if (c === ')' || c === '}' || c === ']') {
        if (depth === 0) break;
        depth--;
      } else if (c === ',' && depth === 0) break;
    }
    found.push(template.slice(at + 'it.t('.length, end).trim());
  }
  return found;
}

describe('console labels', () => {
  it.each(['es', 'en'] as const)('%s has words for every value of every vocabulary the console labels', (language) => {
    const words = DICTIONARIES[language] as Record<string, string>;
    const missing = Object.entries(LABELS).flatMap(([vocabulary, mapping]) =>
      Object.entries(mapping)
        .filter(([, key]) => !words[key]?.trim())
        .map(([value]) => `${vocabulary} ${value}`),
    );
    expect(missing).toEqual([]);
  });

  it("labels every value of the domain's vocabularies, and no other", () => {
    const values = (mapping: object) => Object.keys(mapping).sort();
    expect(values(LABELS.leadStatus)).toEqual([...LEAD_STATUSES].sort());
    expect(values(LABELS.leadType)).toEqual([...LEAD_TYPES].sort());
    expect(values(LABELS.propertyStatus)).toEqual([...PROPERTY_STATUSES].sort());
    expect(values(LABELS.statusMove)).toEqual([...PROPERTY_STATUSES].sort());
    expect(values(LABELS.propertyType)).toEqual([...PROPERTY_TYPES].sort());
    expect(values(LABELS.operation)).toEqual([...OPERATIONS].sort());
    expect(values(LABELS.rentalType)).toEqual([...RENTAL_TYPES].sort());
    expect(values(LABELS.addressPrivacy)).toEqual([...ADDRESS_PRIVACY].sort());
    expect(values(LABELS.scope)).toEqual([...SCOPES].sort());
    expect(values(LABELS.role)).toEqual([...ROLES].sort());
    expect(values(LABELS.auditAction)).toEqual(Object.keys(AUDIT_ACTIONS).sort());
    expect(values(LABELS.viewingStatus)).toEqual([...VIEWING_STATUSES].sort());
    expect(values(LABELS.viewingSource)).toEqual([...VIEWING_SOURCES].sort());
    // Every action a button makes is one the viewing's life has.
    for (const action of Object.keys(LABELS.viewingAction)) expect(VIEWING_ACTIONS).toContain(action);
    for (const moves of Object.values(STATUS_MOVES)) for (const to of moves) expect(LABELS.statusMove).toHaveProperty(to);
  });

  it('gives a value it does not know as it is, and never a word of the prototype', () => {
    const label = labeller(translator('en'));
    expect([label.leadStatus('closed'), label.leadStatus('archived'), label.leadStatus('constructor')]).toEqual([
      DICTIONARIES.en.lead_status_closed,
      'archived',
      'constructor',
    ]);
  });

  it('templates build no message key at runtime: every key they name is in the dictionary, every label a vocabulary', () => {
    const words = DICTIONARIES.es as Record<string, string>;
    const literal = /^(['"])([^'"]*)\1$/;
    const either = /^[^'"`+]+\?\s*(['"])([^'"]*)\1\s*:\s*(['"])([^'"]*)\3$/;
    const faults: string[] = [];
    let calls = 0;
    for (const file of readdirSync(VIEWS).filter((name) => name.endsWith('.eta'))) {
      const template = readFileSync(join(VIEWS, file), 'utf8');
      for (const argument of translatedKeys(template)) {
        calls++;
        // A page's problem or notice (the visit sheet's too) is a MessageKey, typed where the section hands it over.
        if (argument === 'it.problem' || argument === 'it.notice' || argument === 'it.sheetProblem') continue;
        const keys = literal.exec(argument)?.slice(2, 3) ?? either.exec(argument)?.filter((_, i) => i === 2 || i === 4);
        if (!keys) faults.push(`${file}: it.t(${argument}) builds its key`);
        else for (const key of keys) if (!words[key]) faults.push(`${file}: no message ${key}`);
      }
      for (const [, vocabulary] of template.matchAll(/\bit\.label\.(\w+)/g))
        if (!Object.hasOwn(LABELS, vocabulary)) faults.push(`${file}: no vocabulary ${vocabulary}`);
    }
    expect(calls).toBeGreaterThan(300);
    expect(faults).toEqual([]);
  });

  it('finds a key built at runtime (the check itself works)', () => {
    expect(translatedKeys("<%= it.t('lead_status_' + s) %> <%= it.t('note_by', { who: it.t('x') }) %>")).toEqual([
      "'lead_status_' + s",
      "'note_by'",
      "'x'",
    ]);
  });
});

describe('a lead search in plain words', () => {
  const every = Object.fromEntries(Object.entries(CRITERIA).map(([name, { kind }]) => [name, kind === 'list' ? ['mar'] : 3]));

  it.each(['es', 'en'] as const)('%s has a label for every criterion of spec §2.4, and no line shows a code', (language) => {
    const words = DICTIONARIES[language] as Record<string, string>;
    expect(Object.entries(CRITERIA).filter(([, { label }]) => !words[label]?.includes('{v}'))).toEqual([]);
    const lines = describeSearch(translator(language), {
      operations: ['venta'],
      property_types: ['casa'],
      casa: every,
      edificio: every,
    }).join('\n');
    for (const name of Object.keys(CRITERIA)) expect(lines).not.toContain(name);
    expect(lines).not.toMatch(/\{v\}|undefined/);
  });

  it('writes the criteria as an agent reads them, prices as es-ES euros', () => {
    const entry = {
      operations: ['alquiler'],
      property_types: ['apartamento'],
      locations: [{ name: 'Delicias' }, { type: 'circle', center: [41.65, -0.9], radius: 800 }],
      apartamento: {
        price_rent_max: 900,
        price_max: 185_000,
        bedrooms_min: 2,
        size_min: 80.5,
        subtypes: ['atico', 'loft'],
        features: null,
      },
      internal_notes: 'No enseñar',
    };
    // Intl puts a no-break space between an amount and its €.
    const said = (language: 'es' | 'en') => describeSearch(translator(language), entry).map((l) => l.replace(/\u00a0/g, ' '));
    expect(said('es')).toEqual([
      'Operación: Alquiler',
      'Tipo: Piso o apartamento',
      'Zona: Delicias; una zona dibujada en el mapa',
      'Piso o apartamento: Alquiler máx. 900 €/mes · Compra máx. 185.000 € · 2+ habitaciones · Desde 80,5 m² · Subtipo: Ático, Loft',
    ]);
    expect(said('en')).toEqual([
      'Operation: Rent',
      'Type: Flat or apartment',
      'Area: Delicias; an area drawn on the map',
      'Flat or apartment: Rent up to 900 €/month · Buy up to 185.000 € · 2+ bedrooms · From 80,5 m² · Subtype: Ático, Loft',
    ]);
  });
});
