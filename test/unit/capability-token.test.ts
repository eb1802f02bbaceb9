/**
 * Capability tokens (issue 56, src/domain/capability-token.ts): one form for new tokens
 * (43 base64url characters from 32 random bytes), the two alphabets that kinds of token need
 * instead, and one hash (SHA-256, hex) that tokens of every earlier form keep.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveToken, hashToken, mintToken, TOKEN_FORM, TOKEN_LENGTH } from '../../src/domain/capability-token.ts';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

describe('capability tokens', () => {
  it('are minted as 43 base64url characters of 32 random bytes, with their SHA-256 in hex', () => {
    const { token, hash } = mintToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(TOKEN_FORM.test(token)).toBe(true);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(hash).toBe(sha256Hex(token));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('are never the same twice, and use the whole alphabet', () => {
    const tokens = Array.from({ length: 2000 }, () => mintToken().token);
    expect(new Set(tokens).size).toBe(tokens.length);
    const seen = new Set(tokens.join(''));
    // 86,000 characters of 64 letters: every one turns up.
    expect(seen.size).toBe(64);
  });

  it('take base62 where the contract fixes it (feed URLs) and lower-case letters and digits for e-mail addresses', () => {
    for (let i = 0; i < 200; i++) {
      const base62 = mintToken('base62');
      expect(base62.token).toMatch(/^[A-Za-z0-9]{43}$/);
      expect(base62.hash).toBe(sha256Hex(base62.token));
      const lower = mintToken('lowercase');
      expect(lower.token).toMatch(/^[a-z0-9]{43}$/);
      expect(lower.token.toLowerCase()).toBe(lower.token);
      expect(lower.hash).toBe(sha256Hex(lower.token));
    }
    expect(TOKEN_LENGTH).toBe(43);
    const letters = new Set(Array.from({ length: 500 }, () => mintToken('base62').token).join(''));
    expect(letters.size).toBe(62);
  });

  it('hash tokens of every earlier form as they were hashed when handed out (SHA-256 of the text, hex)', () => {
    const earlier = [
      'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg', // base62-43: calendar and feed URLs
      'c0ffee00c0ffee00c0ffee00c0ffee00', // hex-32: listings' pages (stored as they are)
      'abcdefghijklmnopqrstuvwxyz0123456789abcdefg', // lower-case: inbound addresses
      'Ab-_Cd-_Ef-_Gh-_Ij-_Kl-_Mn-_Op-_Qr-_St-_Uvw', // base64url-43: sessions, links in e-mails
    ];
    for (const token of earlier) expect(hashToken(token)).toBe(sha256Hex(token));
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // Calendar URLs made before issue 56 are base62: still of the form their lookup accepts.
    expect(TOKEN_FORM.test(earlier[0])).toBe(true);
    expect(TOKEN_FORM.test(earlier[3])).toBe(true);
    expect(TOKEN_FORM.test(earlier[1])).toBe(false);
    expect(TOKEN_FORM.test(`${earlier[3]}A`)).toBe(false);
    expect(TOKEN_FORM.test('Ab+/Cd-_Ef-_Gh-_Ij-_Kl-_Mn-_Op-_Qr-_St-_Uvw')).toBe(false);
  });

  it('derive a token for one use of another: the alert dismissal tokens of issue 45, byte for byte', () => {
    const page = mintToken().token;
    const derived = deriveToken(page, 'inmo alert dismissal\n17');
    expect(derived).toBe(createHash('sha256').update(`inmo alert dismissal\n17\n${page}`).digest('base64url'));
    expect(TOKEN_FORM.test(derived)).toBe(true);
    expect(deriveToken(page, 'inmo alert dismissal\n18')).not.toBe(derived);
    expect(deriveToken(page, 'inmo alert dismissal\n17')).toBe(derived);
  });
});
