/** The messaging providers a business can connect a channel with (CONTRACT §7, §10). */
export const PROVIDERS = ['whatsapp-cloud'] as const;
