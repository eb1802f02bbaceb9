/**
 * Mailboxes as mail settings write them (CONTRACT §19): `hola@agencia.example` or
 * `Agencia Sol <hola@agencia.example>`, read with nodemailer's address parser. No I/O: config.ts
 * checks `INMO_SMTP_FROM` with it at start.
 */
import { createRequire } from 'node:module';

type AddressParser = typeof import('nodemailer/lib/addressparser').default;
/** nodemailer's address parser, required at the first mailbox read: the CLI's start loads nothing but its program (issue 42). */
let addressparser: AddressParser | undefined;
const loadAddressParser = (): AddressParser =>
  (addressparser ??= createRequire(import.meta.url)('nodemailer/lib/addressparser') as AddressParser);

/** A plain address `local@domain` (no display name, no spaces or angle brackets), at most 254 characters. */
export function isEmailAddress(text: string): boolean {
  return text.length <= 254 && /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\]]+$/.test(text);
}

/** A mailbox (RFC 5322 `mailbox`): an address and the display name written with it, if any. */
export interface Mailbox {
  /** The display name (`Agencia Sol`), or null when only the address was given. */
  name: string | null;
  /** `local@domain`, as {@link isEmailAddress} accepts it. */
  address: string;
}

/**
 * Reads a mailbox as mail settings are written (`INMO_SMTP_FROM`, `inmo email connect --from`, the
 * console's e-mail page), with nodemailer's address parser: `hola@agencia.example`,
 * `Agencia Sol <hola@agencia.example>` or `"Agencia Sol, S.L." <hola@agencia.example>`.
 * @returns the mailbox, or null for anything else: no address, several, a group, an address in
 *   angle brackets left open, a name without angle brackets, line breaks.
 */
export function parseMailbox(text: string): Mailbox | null {
  const trimmed = text.trim();
  if (!trimmed || trimmed.length > 400 || /[\r\n]/.test(trimmed)) return null;
  // addressparser forgives what a mail client would not: `Name <a@b` and `Name a@b`.
  if (trimmed.includes('<') ? !/<[^<>]+>$/.test(trimmed) : !isEmailAddress(trimmed)) return null;
  const parsed = loadAddressParser()(trimmed);
  if (parsed.length !== 1 || 'group' in parsed[0]) return null;
  const { name, address } = parsed[0];
  if (!isEmailAddress(address)) return null;
  return { name: name.trim() || null, address };
}

/** A mailbox as a From header's text: `"Name" <address>` (quotes and line breaks left out of the name), or the address. */
export function formatMailbox(mailbox: Mailbox): string {
  const name = mailbox.name
    ?.replace(/["\\\r\n]/g, '')
    .trim()
    .slice(0, 100);
  return name ? `"${name}" <${mailbox.address}>` : mailbox.address;
}
