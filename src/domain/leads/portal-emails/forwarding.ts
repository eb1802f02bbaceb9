/**
 * The forwarding rule an agency copies into its mailbox (CONTRACT §25): the portals' e-mails
 * (those a portal's parser reads: idealista, fotocasa, habitaclia, pisos.com) sent on to the
 * business's inbound address, each keeping its copy in the mailbox. Shown on the console's e-mail
 * page, as a webmail filter's criteria (Gmail's and Outlook's search syntax) and as a Sieve script
 * (RFC 5228 with `copy`, RFC 3894) for mail servers that run one (dovecot's Pigeonhole, Fastmail, …).
 *
 * Pure.
 */

/** The domains the portals' notifications come from, one per parser (index.ts `PORTAL_PARSERS` reads each). */
export const PORTAL_SENDER_DOMAINS = ['idealista.com', 'fotocasa.es', 'habitaclia.com', 'pisos.com'] as const;

/** A forwarding rule to `address`, in the two forms the console shows. */
export interface ForwardingRules {
  /** A webmail filter's criteria: `from:(idealista.com OR fotocasa.es OR …)`. */
  filter: string;
  /** A Sieve script that redirects a copy of each portal e-mail (from those domains or their subdomains). */
  sieve: string;
}

/**
 * The rules that forward the portals' e-mails to `address`.
 * @param address the business's inbound address (`<token>@domain`: letters, digits, `.`, `-` only).
 */
export function forwardingRules(address: string): ForwardingRules {
  const domains = PORTAL_SENDER_DOMAINS.flatMap((domain) => [`"${domain}"`, `"*.${domain}"`]).join(', ');
  return {
    filter: `from:(${PORTAL_SENDER_DOMAINS.join(' OR ')})`,
    sieve: ['require ["copy"];', `if address :domain :matches "from" [${domains}] {`, `  redirect :copy "${address}";`, '}'].join('\n'),
  };
}
