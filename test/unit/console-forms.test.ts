/**
 * The console reads each form by its schema (http/console/forms.ts `readForm`,
 * schemas/console-forms.ts): a form body as @fastify/formbody parses it becomes typed values,
 * and every malformed field a fault.
 */
import { describe, expect, it } from 'vitest';
import { readForm } from '../../src/http/console/forms.ts';
import { FollowUpRuleForm, KeyForm } from '../../src/schemas/console-forms.ts';

describe('readForm', () => {
  it('gives strings, arrays for repeated fields, integers from text and defaults for empty fields', () => {
    const { value, faults } = readForm(
      { name: 'web', scopes: ['leads:read', 'properties:read'], expires_on: '', kind: '', _csrf: 't' },
      KeyForm,
    );
    expect(faults).toEqual([]);
    expect(value).toEqual({ name: 'web', scopes: ['leads:read', 'properties:read'], expires_on: '', kind: 'secret', origins: '' });
    expect(readForm({ type: 'propietario', every_days: '60' }, FollowUpRuleForm)).toEqual({
      value: { type: 'propietario', every_days: 60 },
      faults: [],
    });
  });

  it('takes one checkbox as a list of one, and the first of a repeated single field', () => {
    expect(readForm({ name: ['a', 'b'], scopes: 'leads:read' }, KeyForm).value).toMatchObject({ name: 'a', scopes: ['leads:read'] });
  });

  it('reports every malformed field by name, keeping what was sent so the page can show it again', () => {
    const { value, faults } = readForm({ name: 'n'.repeat(101), scopes: ['leads:read', 'nope'], kind: 'master' }, KeyForm);
    expect(faults).toEqual([
      { field: 'name', type: 'string_too_long' },
      { field: 'scopes', type: 'literal_error' },
      { field: 'kind', type: 'literal_error' },
    ]);
    expect(value).toMatchObject({ name: 'n'.repeat(101), scopes: ['leads:read', 'nope'], kind: 'master' });
    expect(readForm({ type: 'x', every_days: '1.5' }, FollowUpRuleForm).faults).toEqual([{ field: 'every_days', type: 'int_parsing' }]);
    expect(readForm({ type: 'x' }, FollowUpRuleForm).faults).toEqual([{ field: 'every_days', type: 'int_parsing' }]);
  });
});
