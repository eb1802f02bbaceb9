/**
 * What inmo believes of a portal e-mail (issue 55, domain/leads/portal-emails/trust.ts): the
 * topmost `Authentication-Results` value (RFC 8601) read with its comments, quoted strings and
 * spaces, and the rule: a portal's domain that passed DKIM or DMARC, or one of the agency's own
 * addresses that passed; nothing else.
 */
import { describe, expect, it } from 'vitest';
import { AUTH_RESULTS_MAX, emailTrust, parseAuthResults, passedDomains } from '../../src/domain/leads/portal-emails/trust.ts';

const OWN = new Set(['info@inmobiliariasol.es', 'agencia.sol@gmail.com']);
const direct = { sender: null, forwarded: false };
const forwarded = { sender: 'noreply.pro.es@idealista.com', forwarded: true };
const mail = (from: string | null, ...authentication: string[]) => ({ from, authentication });

describe('Authentication-Results values (RFC 8601 §2.2)', () => {
  it('reads the server, each method and result, and the properties, through comments, quotes and spaces', () => {
    expect(
      parseAuthResults(
        'mx.google.com (the server; comment (nested)); dkim=pass (2048-bit key; unprotected) header.i=@idealista.com header.s=s1 header.b="Xk3 p;Q"; ' +
          'spf = pass (google.com: domain of x designates 1.2.3.4) smtp.mailfrom=bounce@idealista.com; dmarc=pass (p=REJECT sp=NONE dis=NONE) header.from = idealista.com; dkim/1=fail header.d=evil.example',
      ),
    ).toEqual({
      authservId: 'mx.google.com',
      results: [
        { method: 'dkim', result: 'pass', props: { 'header.i': '@idealista.com', 'header.s': 's1', 'header.b': 'Xk3 p;Q' } },
        { method: 'spf', result: 'pass', props: { 'smtp.mailfrom': 'bounce@idealista.com' } },
        { method: 'dmarc', result: 'pass', props: { 'header.from': 'idealista.com' } },
        { method: 'dkim', result: 'fail', props: { 'header.d': 'evil.example' } },
      ],
    });
    expect(parseAuthResults('mx.example.net 1; none')).toEqual({ authservId: 'mx.example.net', results: [] });
    expect(parseAuthResults('')).toBeNull();
    expect(parseAuthResults(`mx.example.net; dkim=pass header.d=idealista.com ${'x'.repeat(AUTH_RESULTS_MAX)}`)).toBeNull();
  });

  it('counts only passes: DKIM’s header.d (else header.i’s domain), DMARC’s header.from; never a bare top-level domain', () => {
    const read = parseAuthResults(
      'mx; dkim=pass header.d=fotocasa.es; dkim=pass header.i=@envios.habitaclia.com; dmarc=pass header.from=pisos.com; dkim=fail header.d=idealista.com; dkim=pass header.d=com; spf=pass smtp.mailfrom=x@evil.example',
    );
    expect(passedDomains(read)).toEqual(['fotocasa.es', 'envios.habitaclia.com', 'pisos.com']);
  });
});

describe('emailTrust', () => {
  it('believes a portal whose own domain passed, aligned with its From', () => {
    expect(emailTrust(mail('noreply.pro.es@idealista.com', 'mx; dkim=pass header.d=idealista.com'), direct, OWN)).toBe('portal');
    expect(emailTrust(mail('no-reply@messaging.fotocasa.es', 'mx; dkim=pass header.d=fotocasa.es'), direct, OWN)).toBe('portal');
    expect(emailTrust(mail('noreply@pisos.com', 'mx; dkim=fail header.d=pisos.com; dmarc=pass header.from=pisos.com'), direct, OWN)).toBe(
      'portal',
    );
  });

  it('believes nothing else of a portal’s name: no results, another domain’s pass, a failure, a result below the topmost', () => {
    expect(emailTrust(mail('noreply.pro.es@idealista.com'), direct, OWN)).toBe('unverified');
    expect(emailTrust(mail('noreply.pro.es@idealista.com', 'mx; dkim=pass header.d=evil.example'), direct, OWN)).toBe('unverified');
    expect(emailTrust(mail('noreply.pro.es@idealista.com', 'mx; dkim=pass header.d=idealista.com.evil.example'), direct, OWN)).toBe(
      'unverified',
    );
    expect(emailTrust(mail('noreply.pro.es@idealista.com', 'mx; dkim=none; dmarc=fail header.from=idealista.com'), direct, OWN)).toBe(
      'unverified',
    );
    expect(
      emailTrust(
        mail('noreply.pro.es@idealista.com', 'mx; dkim=none; dmarc=fail header.from=idealista.com', 'mx; dkim=pass header.d=idealista.com'),
        direct,
        OWN,
      ),
    ).toBe('unverified');
    // A sender's own domain passing makes it no portal.
    expect(emailTrust(mail('avisos@otro.example', 'mx; dkim=pass header.d=otro.example'), direct, OWN)).toBe('unverified');
  });

  it('believes a forward only from the agency’s own address, and only when that address’s domain passed', () => {
    expect(emailTrust(mail('agencia.sol@gmail.com', 'mx; dkim=pass header.d=gmail.com'), forwarded, OWN)).toBe('agency');
    expect(emailTrust(mail('info@inmobiliariasol.es', 'mx; dmarc=pass header.from=inmobiliariasol.es'), forwarded, OWN)).toBe('agency');
    expect(emailTrust(mail('cualquiera@gmail.com', 'mx; dkim=pass header.d=gmail.com'), forwarded, OWN)).toBe('unverified');
    expect(emailTrust(mail('agencia.sol@gmail.com'), forwarded, OWN)).toBe('unverified');
    // A forward from a portal's own domain is no portal's notification.
    expect(emailTrust(mail('someone@idealista.com', 'mx; dkim=pass header.d=idealista.com'), forwarded, OWN)).toBe('unverified');
  });
});
