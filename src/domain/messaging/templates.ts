/**
 * A WhatsApp channel's approved templates by purpose (CONTRACT §20, §21; `channels.templates`,
 * migration 0039): which template carries each kind of message a business sends outside the
 * 24-hour window. A purpose with no template named goes by e-mail. Pure, and light: the CLI's
 * program reads {@link TEMPLATE_PURPOSES} before any command runs.
 */

/**
 * The keys of a channel's `templates` setting (CONTRACT §20, §21): the approved template for each
 * purpose. `property_alert` is kept for alerts; the others are the viewing notices', `valuation_*`
 * those of an owner's valuation visit, `owner_report` an owner's report's link (CONTRACT §24).
 */
export const TEMPLATE_PURPOSES = [
  'viewing_scheduled',
  'viewing_rescheduled',
  'viewing_cancelled',
  'viewing_reminder',
  'valuation_scheduled',
  'valuation_rescheduled',
  'valuation_cancelled',
  'valuation_reminder',
  'property_alert',
  'owner_report',
] as const;
export type TemplatePurpose = (typeof TEMPLATE_PURPOSES)[number];

/** A channel's templates by purpose; a purpose not named has none (its messages go by e-mail). */
export type ChannelTemplates = Partial<Record<TemplatePurpose, string>>;

/** WhatsApp's rule for a template name: lower-case letters, digits and underscores, at most 512. */
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;

/**
 * Reads a `templates` setting: an object of purpose → template name, or null for the fault.
 * Blank names are dropped (no template for that purpose).
 * @returns `{templates}`, or `{error}` in plain words naming the purpose or the name at fault.
 */
export function checkTemplates(value: unknown): { templates: ChannelTemplates } | { error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: `templates must be an object of purpose → template name (${TEMPLATE_PURPOSES.join(', ')})` };
  }
  const templates: ChannelTemplates = {};
  for (const [key, name] of Object.entries(value)) {
    if (!(TEMPLATE_PURPOSES as readonly string[]).includes(key)) {
      return { error: `unknown template purpose ${JSON.stringify(key)}; the purposes are ${TEMPLATE_PURPOSES.join(', ')}` };
    }
    if (name === null || (typeof name === 'string' && name.trim() === '')) continue;
    if (typeof name !== 'string' || !TEMPLATE_NAME.test(name.trim())) {
      return { error: `the template of ${key} must be a WhatsApp template name: lower-case letters, digits and underscores` };
    }
    templates[key as TemplatePurpose] = name.trim();
  }
  return { templates };
}

/** The stored `templates` JSON read back (anything unreadable names none). */
export function storedTemplates(stored: string | null | undefined): ChannelTemplates {
  try {
    const checked = checkTemplates(JSON.parse(stored ?? '{}'));
    return 'templates' in checked ? checked.templates : {};
  } catch {
    return {};
  }
}
