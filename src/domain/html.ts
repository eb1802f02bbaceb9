/**
 * Listing descriptions are HTML written by agencies and published to their websites, so
 * they pass an allowlist (CONTRACT §5): text formatting and links only; no scripts, event
 * handlers, `javascript:` URLs, iframes or inline styles.
 */
import sanitizeHtml from 'sanitize-html';

const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'b', 'strong', 'i', 'em', 'u', 'ul', 'ol', 'li', 'h2', 'h3', 'h4', 'blockquote', 'a', 'span'],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow' }),
  },
};

/** The published form of an imported description; null stays null. */
export function sanitizeDescription(html: string | null): string | null {
  return html === null ? null : sanitizeHtml(html, OPTIONS);
}
