/** The roles of the console's people (CONTRACT §12): an owner manages the workspace, an agent works leads and listings. */
export const ROLES = ['owner', 'agent'] as const;
export type Role = (typeof ROLES)[number];
