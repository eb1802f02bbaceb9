/**
 * E-mail received by SMTP (CONTRACT §25), its pure parts: the settings read from the environment
 * (a port needs a domain, and the other way round; a domain is a host name; the TLS files go
 * together) and the forwarding rule the console shows, which names every portal a parser reads.
 */
import { describe, expect, it } from 'vitest';
import { inboundSmtpSettings } from '../../src/config.ts';
import { forwardingRules, PORTAL_SENDER_DOMAINS } from '../../src/domain/leads/portal-emails/forwarding.ts';
import { PORTAL_PARSERS } from '../../src/domain/leads/portal-emails/index.ts';

describe('the inbound SMTP settings', () => {
  it('are off without INMO_SMTP_INBOUND_PORT, and read with their defaults when it is set', () => {
    expect(inboundSmtpSettings({})).toBeNull();
    expect(inboundSmtpSettings({ INMO_SMTP_INBOUND_PORT: '25', INMO_INBOUND_DOMAIN: 'Entrada.Agencia.Example.' })).toEqual({
      port: 25,
      host: null,
      domain: 'entrada.agencia.example',
      maxConnections: 50,
      sessionMs: 600_000,
      tls: null,
    });
    expect(
      inboundSmtpSettings({
        INMO_SMTP_INBOUND_PORT: '2525',
        INMO_INBOUND_DOMAIN: 'in.example.com',
        INMO_SMTP_INBOUND_HOST: '0.0.0.0',
        INMO_SMTP_INBOUND_MAX_CONNECTIONS: '5',
        INMO_SMTP_INBOUND_SESSION_MS: '30000',
        INMO_SMTP_INBOUND_TLS_CERT: '/etc/inmo/cert.pem',
        INMO_SMTP_INBOUND_TLS_KEY: '/etc/inmo/key.pem',
      }),
    ).toEqual({
      port: 2525,
      host: '0.0.0.0',
      domain: 'in.example.com',
      maxConnections: 5,
      sessionMs: 30_000,
      tls: { certFile: '/etc/inmo/cert.pem', keyFile: '/etc/inmo/key.pem' },
    });
  });

  it('refuse, naming the variable, a port without a domain, a domain without a port, a bad domain, one TLS file alone', () => {
    expect(() => inboundSmtpSettings({ INMO_SMTP_INBOUND_PORT: '25' })).toThrow(/INMO_INBOUND_DOMAIN/);
    expect(() => inboundSmtpSettings({ INMO_INBOUND_DOMAIN: 'in.example.com' })).toThrow(/INMO_SMTP_INBOUND_PORT/);
    expect(() => inboundSmtpSettings({ INMO_SMTP_INBOUND_PORT: '99999', INMO_INBOUND_DOMAIN: 'in.example.com' })).toThrow(
      /INMO_SMTP_INBOUND_PORT/,
    );
    for (const domain of ['localhost', 'in example.com', 'a@b.example', '-x.example.com'])
      expect(() => inboundSmtpSettings({ INMO_SMTP_INBOUND_PORT: '25', INMO_INBOUND_DOMAIN: domain })).toThrow(/INMO_INBOUND_DOMAIN/);
    expect(() =>
      inboundSmtpSettings({ INMO_SMTP_INBOUND_PORT: '25', INMO_INBOUND_DOMAIN: 'in.example.com', INMO_SMTP_INBOUND_TLS_CERT: '/c.pem' }),
    ).toThrow(/INMO_SMTP_INBOUND_TLS_KEY/);
  });
});

describe('the forwarding rule', () => {
  it('names every portal a parser reads, and only those', () => {
    for (const parser of PORTAL_PARSERS) expect(PORTAL_SENDER_DOMAINS.some((domain) => parser.sends(domain))).toBe(true);
    for (const domain of PORTAL_SENDER_DOMAINS) expect(PORTAL_PARSERS.some((parser) => parser.sends(domain))).toBe(true);
  });

  it('is a webmail search and a Sieve script that redirects a copy to the address', () => {
    const rules = forwardingRules('abc123@entrada.agencia.example');
    expect(rules.filter).toBe('from:(idealista.com OR fotocasa.es OR habitaclia.com OR pisos.com)');
    expect(rules.sieve.split('\n')).toEqual([
      'require ["copy"];',
      'if address :domain :matches "from" ["idealista.com", "*.idealista.com", "fotocasa.es", "*.fotocasa.es", "habitaclia.com", "*.habitaclia.com", "pisos.com", "*.pisos.com"] {',
      '  redirect :copy "abc123@entrada.agencia.example";',
      '}',
    ]);
  });
});
