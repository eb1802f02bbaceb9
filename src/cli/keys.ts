/** `inmo keys create|list|revoke` (spec §5, CONTRACT §3, §9): API keys of a business. */
import type { Command } from 'commander';
import {
  KEY_PREFIX,
  parseApiKey,
  parseScopes,
  PUBLISHABLE_PREFIX,
  PUBLISHABLE_SCOPES,
  SCOPES,
  type Scope,
} from '../domain/access/api-key.ts';
import { parseRfc3339 } from '../domain/time.ts';
import { action, CliError, command, positiveInt, print, withDb } from './common.ts';

const KEY_ID_HINT = `the key id is the part between ${KEY_PREFIX} and the dot`;

/**
 * The key id named by the operator: a key id, or a whole key (`AC_LIVE_<key_id>.<secret>`),
 * whose id is taken.
 * @throws CliError for text that starts like a key but is not one.
 */
export function keyIdOf(text: string): string {
  if (!text.startsWith(KEY_PREFIX) && !text.startsWith(PUBLISHABLE_PREFIX)) return text;
  const parts = parseApiKey(text);
  if (!parts) throw new CliError(`${text.slice(0, KEY_PREFIX.length + 4)}… is not a whole key: ${KEY_ID_HINT}`);
  return parts.keyId;
}

/**
 * `--expires-at`: an RFC 3339 instant still to come.
 * @throws CliError when it does not parse or is not in the future.
 */
export function expiryOf(text: string, now = Date.now()): string {
  const expiresAt = parseRfc3339(text);
  if (expiresAt === null) throw new CliError('--expires-at must be an RFC 3339 timestamp with an offset, e.g. 2027-01-01T00:00:00Z');
  if (Date.parse(expiresAt) <= now) throw new CliError(`--expires-at ${text} is not in the future: the key would be dead on arrival`);
  return expiresAt;
}

export function register(program: Command): void {
  const keys = program.command('keys').description('API keys');
  command(keys, 'create', 'issue a key for a business; the whole key is printed once, store it then')
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(',')} (required, except with --publishable)`)
    .option('--name <label>', 'a label for the key')
    .option('--expires-at <iso>', 'RFC 3339 expiry in the future, e.g. 2027-01-01T00:00:00Z')
    .option(
      '--publishable',
      `a key for browser forms (${PUBLISHABLE_PREFIX}…): only ${PUBLISHABLE_SCOPES.join(', ')} (the default), only from the --origin given`,
    )
    .option(
      '--origin <origin>',
      'with --publishable: a web origin the key may be used from, e.g. https://site.example (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(
      action(
        async (opts: {
          business: number;
          scopes?: string;
          name?: string;
          expiresAt?: string;
          publishable?: boolean;
          origin?: string[];
        }) => {
          const { createApiKey } = await import('../services/access/api-keys.ts');
          if (opts.publishable && !opts.origin?.length)
            throw new CliError('--publishable needs at least one --origin, e.g. --origin https://site.example');
          if (!opts.publishable && opts.origin) throw new CliError('--origin is for publishable keys: add --publishable');
          if (!opts.publishable && opts.scopes === undefined) throw new CliError("required option '--scopes <list>' not specified");
          let scopes: Scope[];
          try {
            scopes = opts.scopes === undefined ? [...PUBLISHABLE_SCOPES] : parseScopes(opts.scopes);
          } catch (error) {
            throw new CliError((error as Error).message);
          }
          const expiresAt = opts.expiresAt === undefined ? null : expiryOf(opts.expiresAt);
          const key = await withDb((db) =>
            createApiKey(db, {
              businessId: opts.business,
              scopes,
              label: opts.name,
              expiresAt,
              ...(opts.publishable ? { origins: opts.origin } : {}),
            }),
          );
          print(key, `${key.key}\n(key id ${key.key_id}; scopes ${key.scopes.join(', ')}; shown once: store it now)`);
        },
      ),
    );
  command(keys, 'list', "list a business's keys (never their secrets)")
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .action(
      action(async (opts: { business: number }) => {
        const { keyState, listApiKeys } = await import('../services/access/api-keys.ts');
        const list = await withDb((db) => listApiKeys(db, opts.business), { mustExist: true });
        const human = list
          .map((k) => {
            const state = keyState(k);
            const kind = k.origins ? `publishable from ${k.origins.join(' ')}` : 'secret';
            return `${k.key_id}  ${state.padEnd(7)}  ${kind}  ${k.scopes.join(',')}  ${k.name ?? ''}  last used ${k.last_used_at ?? 'never'}`;
          })
          .join('\n');
        print(list, human || 'no keys');
      }),
    );
  command(keys, 'revoke', 'revoke a key at once (requests with it get 401)')
    .argument('<key>', `the key id (${KEY_ID_HINT}), or the whole key`)
    .action(
      action(async (text: string) => {
        const { revokeApiKey } = await import('../services/access/api-keys.ts');
        const keyId = keyIdOf(text);
        const key = await withDb((db) => revokeApiKey(db, keyId, null));
        if (!key) throw new CliError(`No key with id ${keyId} (${KEY_ID_HINT})`);
        print(key, `revoked ${key.key_id} at ${key.revoked_at}`);
      }),
    );
}
