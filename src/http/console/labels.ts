/**
 * The words of the values the console shows (issue 42): a lead's status, a listing's type, a
 * key's state… Each vocabulary maps every one of its values to a message key of i18n.ts, so a
 * value without words, or a key missing from messages/es.json, does not compile. No page or
 * template builds a key from a value: templates call `it.label.<vocabulary>(value)` (page.ts
 * hands them {@link labeller}), and test/unit/console-labels.test.ts checks that they do.
 */
import type { EditableField } from '../../services/leads/edit.ts';
import type { FormCriterion } from './lead-edit-form.ts';
import type { ConversationState, FollowUpState, LeadInteractionTable } from '../../db/types.ts';
import type { Scope } from '../../domain/access/api-key.ts';
import type { AddressPrivacy, Operation, PropertyStatus, PropertyType, RentalType } from '../../domain/catalogue/terms.ts';
import type { FeedFormat } from '../../domain/catalogue/feed-formats.ts';
import type { ListingLanguage } from '../../domain/catalogue/languages.ts';
import type { CertificateStatus, Condition } from '../../domain/catalogue/listing-facts.ts';
import type { IdealistaLeftOutReason } from '../../domain/catalogue/idealista-feed.ts';
import type { LeadStatus, LeadType } from '../../domain/leads/rules.ts';
import type { ViewingSource, ViewingStatus } from '../../domain/viewings/status.ts';
import type { Weekday } from '../../domain/viewings/hours.ts';
import type { ApiKeyInfo, keyState } from '../../services/access/api-keys.ts';
import type { AuditAction } from '../../services/access/audit.ts';
import type { Role, UserInfo } from '../../services/access/console-users.ts';
import type { HiddenBecause } from '../../services/catalogue/listings.ts';
import type { LanguageState } from '../../domain/catalogue/languages.ts';
import type { CatalogueImportRow } from '../../services/catalogue/import/uploads.ts';
import type { DISCARDED_BY_AGENT, NOT_UNDERSTOOD } from '../../services/leads/email-intake.ts';
import type { ListingForm } from '../../schemas/console-forms.ts';
import type { Static } from '@sinclair/typebox';
import type { MessageKey, Translate } from './i18n.ts';
import type { OwnerStage } from '../../domain/leads/owner-stages.ts';

export const LEAD_STATUS_LABEL = {
  new: 'lead_status_new',
  searching_property: 'lead_status_searching_property',
  active_negotiation: 'lead_status_active_negotiation',
  closed: 'lead_status_closed',
  inactive: 'lead_status_inactive',
} as const satisfies Record<LeadStatus, MessageKey>;

export const LEAD_TYPE_LABEL = {
  demandante: 'lead_type_demandante',
  propietario: 'lead_type_propietario',
  'agencia-inmobiliaria': 'lead_type_agencia-inmobiliaria',
  'entidad-bancaria': 'lead_type_entidad-bancaria',
  'proveedor-servicios': 'lead_type_proveedor-servicios',
} as const satisfies Record<LeadType, MessageKey>;

/** Where the agency stands with an owner (CONTRACT §24). */
export const OWNER_STAGE_LABEL = {
  new: 'owner_stage_new',
  valuation_scheduled: 'owner_stage_valuation_scheduled',
  valued: 'owner_stage_valued',
  mandate_signed: 'owner_stage_mandate_signed',
  lost: 'owner_stage_lost',
} as const satisfies Record<OwnerStage, MessageKey>;

/** How a request about a known lead came (CONTRACT §22). */
export const INTERACTION_CHANNEL_LABEL = {
  inquiry: 'interaction_inquiry',
  ingest: 'interaction_ingest',
  email: 'interaction_email',
  alert: 'interaction_alert',
} as const satisfies Record<LeadInteractionTable['channel'], MessageKey>;

/** Why a listing went in an alert (CONTRACT §21). */
export const ALERT_REASON_LABEL = {
  new: 'alert_reason_new',
  price_drop: 'alert_reason_price_drop',
} as const satisfies Record<'new' | 'price_drop', MessageKey>;

/** Where the message of listings sent is (its state, services/messaging/delivery.ts; WhatsApp's statuses move it on). */
export const ALERT_STATE_LABEL = {
  pending: 'alert_state_pending',
  sending: 'alert_state_sending',
  sent: 'alert_state_sent',
  delivered: 'alert_state_delivered',
  read: 'alert_state_read',
  failed: 'alert_state_failed',
  needs_reconciliation: 'alert_state_needs_reconciliation',
} as const satisfies Record<string, MessageKey>;

/** Who wrote a message of a lead's WhatsApp thread: its `author`, or the lead for one that came in (`lead`). */
export const MESSAGE_AUTHOR_LABEL = {
  lead: 'message_author_lead',
  welcome: 'message_author_welcome',
  assistant: 'message_author_assistant',
  agent: 'message_author_agent',
  alert: 'message_author_alert',
  viewing: 'message_author_viewing',
} as const satisfies Record<string, MessageKey>;

/** Where a message of the thread is: the states of one sent (as the listings sent) and one received. */
export const MESSAGE_STATE_LABEL = {
  ...ALERT_STATE_LABEL,
  received: 'message_state_received',
} as const satisfies Record<string, MessageKey>;

/** The days of the week of a business's viewing hours (domain/viewings/hours.ts `WEEKDAYS`). */
export const WEEKDAY_LABEL = {
  mon: 'weekday_mon',
  tue: 'weekday_tue',
  wed: 'weekday_wed',
  thu: 'weekday_thu',
  fri: 'weekday_fri',
  sat: 'weekday_sat',
  sun: 'weekday_sun',
} as const satisfies Record<Weekday, MessageKey>;

export const FOLLOW_UP_STATE_LABEL = {
  scheduled: 'follow_up_scheduled',
  due: 'follow_up_due',
  done: 'follow_up_done',
} as const satisfies Record<FollowUpState, MessageKey>;

export const CONVERSATION_STATE_LABEL = {
  assistant: 'conversation_assistant',
  waiting_for_agent: 'conversation_waiting_for_agent',
  opted_out: 'conversation_opted_out',
} as const satisfies Record<ConversationState, MessageKey>;

export const PROPERTY_STATUS_LABEL = {
  disponible: 'property_status_disponible',
  reservada: 'property_status_reservada',
  vendida: 'property_status_vendida',
  alquilada: 'property_status_alquilada',
  retirada: 'property_status_retirada',
} as const satisfies Record<PropertyStatus, MessageKey>;

/** The button that moves a listing to a status (services/catalogue/listings.ts `STATUS_MOVES`). */
export const STATUS_MOVE_LABEL = {
  disponible: 'move_disponible',
  reservada: 'move_reservada',
  vendida: 'move_vendida',
  alquilada: 'move_alquilada',
  retirada: 'move_retirada',
} as const satisfies Record<PropertyStatus, MessageKey>;

export const PROPERTY_TYPE_LABEL = {
  apartamento: 'property_type_apartamento',
  casa: 'property_type_casa',
  local: 'property_type_local',
  nave: 'property_type_nave',
  almacenaje: 'property_type_almacenaje',
  oficina: 'property_type_oficina',
  terreno: 'property_type_terreno',
  aparcamiento: 'property_type_aparcamiento',
  edificio: 'property_type_edificio',
} as const satisfies Record<PropertyType, MessageKey>;

export const OPERATION_LABEL = {
  venta: 'operation_venta',
  alquiler: 'operation_alquiler',
  traspaso: 'operation_traspaso',
} as const satisfies Record<Operation, MessageKey>;

export const RENTAL_TYPE_LABEL = {
  anual: 'rental_type_anual',
  temporal: 'rental_type_temporal',
  vacacional: 'rental_type_vacacional',
} as const satisfies Record<RentalType, MessageKey>;

export const ADDRESS_PRIVACY_LABEL = {
  public: 'privacy_public',
  approximate: 'privacy_approximate',
  hidden: 'privacy_hidden',
} as const satisfies Record<AddressPrivacy, MessageKey>;

/** Why a listing's public page shows nothing. */
export const HIDDEN_BECAUSE_LABEL = {
  not_public: 'hidden_not_public',
  vendida: 'hidden_vendida',
  alquilada: 'hidden_alquilada',
  retirada: 'hidden_retirada',
} as const satisfies Record<HiddenBecause, MessageKey>;

/** Each field of the listing form (schemas/console-forms.ts `ListingForm`), as its label and its faults name it. */
export const LISTING_FIELD_LABEL = {
  external_ref: 'field_external_ref',
  title: 'field_title',
  description: 'field_description',
  operation: 'field_operation',
  rental_type: 'field_rental_type',
  type: 'field_type',
  subtype: 'field_subtype',
  price: 'field_price',
  price_rent: 'field_price_rent',
  price_transfer: 'field_price_transfer',
  size_total: 'field_size_total',
  bedrooms: 'field_bedrooms',
  bathrooms: 'field_bathrooms',
  address: 'field_address',
  address_approximate: 'field_address_approximate',
  building_name: 'field_building_name',
  postal_code: 'field_postal_code',
  city: 'field_city',
  province: 'field_province',
  country: 'field_country',
  lat: 'field_lat',
  lon: 'field_lon',
  address_privacy: 'field_address_privacy',
  status: 'field_status',
  public: 'field_public',
  is_featured: 'field_is_featured',
  features: 'field_features',
  'titles.en': 'field_titles_en',
  'titles.fr': 'field_titles_fr',
  'titles.de': 'field_titles_de',
  'titles.it': 'field_titles_it',
  'descriptions.en': 'field_descriptions_en',
  'descriptions.fr': 'field_descriptions_fr',
  'descriptions.de': 'field_descriptions_de',
  'descriptions.it': 'field_descriptions_it',
  'energy_certificate.status': 'field_energy_status',
  'energy_certificate.rating': 'field_energy_rating',
  'energy_certificate.consumption_kwh_m2_year': 'field_energy_consumption',
  'energy_certificate.emissions_kg_co2_m2_year': 'field_energy_emissions',
  floor: 'field_floor',
  community_fees: 'field_community_fees',
  year_built: 'field_year_built',
  condition: 'field_condition',
} as const satisfies Record<keyof Static<typeof ListingForm>, MessageKey>;

/** A lead's `preferred_language` (spec §2.1: `gb` English, `ge` German), by the language's own name. */
export const LEAD_LANGUAGE_LABEL = {
  es: 'language_name_es',
  gb: 'language_name_en',
  fr: 'language_name_fr',
  ge: 'language_name_de',
  it: 'language_name_it',
} as const satisfies Record<string, MessageKey>;

/** The fields a lead's edit changes (CONTRACT §25), as its history names them. */
export const EDIT_FIELD_LABEL = {
  name: 'edit_field_name',
  phone_number_1: 'edit_field_phone_number_1',
  phone_number_2: 'edit_field_phone_number_2',
  personal_email: 'edit_field_personal_email',
  professional_email: 'edit_field_professional_email',
  preferred_language: 'edit_field_preferred_language',
  search_preferences: 'edit_field_search_preferences',
} as const satisfies Record<EditableField, MessageKey>;

/** The criteria the lead's edit form shows (http/console/lead-edit-form.ts), as its fields' labels. */
export const EDIT_CRITERION_LABEL = {
  price_min: 'edit_criterion_price_min',
  price_max: 'edit_criterion_price_max',
  price_rent_min: 'edit_criterion_price_rent_min',
  price_rent_max: 'edit_criterion_price_rent_max',
  size_min: 'edit_criterion_size_min',
  size_max: 'edit_criterion_size_max',
  bedrooms_min: 'edit_criterion_bedrooms_min',
  bathrooms_min: 'edit_criterion_bathrooms_min',
} as const satisfies Record<FormCriterion, MessageKey>;

/** A listing's language (CONTRACT §22), by its own name. */
export const LISTING_LANGUAGE_LABEL = {
  es: 'language_name_es',
  en: 'language_name_en',
  fr: 'language_name_fr',
  de: 'language_name_de',
  it: 'language_name_it',
} as const satisfies Record<ListingLanguage, MessageKey>;

/** How far a listing is written in a language (http/console/sections/listings.ts `languageState`). */
export const LANGUAGE_STATE_LABEL = {
  written: 'language_state_written',
  no_title: 'language_state_no_title',
  no_description: 'language_state_no_description',
  unwritten: 'language_state_unwritten',
  untranslated: 'language_state_untranslated',
} as const satisfies Record<LanguageState, MessageKey>;

/** An energy certificate's status (domain/catalogue/listing-facts.ts). */
export const CERTIFICATE_STATUS_LABEL = {
  available: 'certificate_available',
  in_process: 'certificate_in_process',
  exempt: 'certificate_exempt',
} as const satisfies Record<CertificateStatus, MessageKey>;

/** A listing's condition (domain/catalogue/listing-facts.ts). */
export const CONDITION_LABEL = {
  'obra-nueva': 'condition_obra_nueva',
  'buen-estado': 'condition_buen_estado',
  'a-reformar': 'condition_a_reformar',
} as const satisfies Record<Condition, MessageKey>;

/** A published feed's format (CONTRACT §15, §22). */
export const FEED_FORMAT_LABEL = {
  kyero: 'feed_format_kyero',
  idealista: 'feed_format_idealista',
} as const satisfies Record<FeedFormat, MessageKey>;

/** Why a listing is left out of the idealista feed (domain/catalogue/idealista-feed.ts). */
export const IDEALISTA_LEFT_OUT_LABEL = {
  type: 'idealista_left_type',
  operation: 'idealista_left_operation',
  price: 'idealista_left_price',
  area: 'idealista_left_area',
  bathrooms: 'idealista_left_bathrooms',
  bedrooms: 'idealista_left_bedrooms',
  address_hidden: 'idealista_left_address_hidden',
  location: 'idealista_left_location',
  country: 'idealista_left_country',
  rules: 'idealista_left_rules',
} as const satisfies Record<IdealistaLeftOutReason, MessageKey>;

export const IMPORT_STATE_LABEL = {
  running: 'import_state_running',
  indexing: 'import_state_indexing',
  done: 'import_state_done',
  failed: 'import_state_failed',
} as const satisfies Record<CatalogueImportRow['state'], MessageKey>;

export const KEY_STATE_LABEL = {
  active: 'state_active',
  revoked: 'state_revoked',
  expired: 'state_expired',
} as const satisfies Record<ReturnType<typeof keyState>, MessageKey>;

export const KEY_KIND_LABEL = {
  secret: 'key_kind_secret',
  publishable: 'key_kind_publishable',
} as const satisfies Record<ApiKeyInfo['kind'], MessageKey>;

/** A key's kind in the list of keys, in few words. */
export const KEY_KIND_SHORT_LABEL = {
  secret: 'key_kind_secret_short',
  publishable: 'key_kind_publishable_short',
} as const satisfies Record<ApiKeyInfo['kind'], MessageKey>;

export const SCOPE_LABEL = {
  'properties:read': 'scope_properties_read',
  'leads:read': 'scope_leads_read',
  'leads:ingest': 'scope_leads_ingest',
  'events:read': 'scope_events_read',
  'leads:erase': 'scope_leads_erase',
  'viewings:write': 'scope_viewings_write',
  'leads:write': 'scope_leads_write',
} as const satisfies Record<Scope, MessageKey>;

export const ROLE_LABEL = {
  owner: 'role_owner',
  agent: 'role_agent',
} as const satisfies Record<Role, MessageKey>;

export const USER_STATE_LABEL = {
  invited: 'user_state_invited',
  active: 'user_state_active',
  disabled: 'user_state_disabled',
} as const satisfies Record<UserInfo['state'], MessageKey>;

export const AUDIT_ACTION_LABEL = {
  'key.create': 'audit_action_key_create',
  'key.revoke': 'audit_action_key_revoke',
  'user.invite': 'audit_action_user_invite',
  'user.disable': 'audit_action_user_disable',
  'user.rename': 'audit_action_user_rename',
  'channel.connect': 'audit_action_channel_connect',
  'channel.change': 'audit_action_channel_change',
  'email.connect': 'audit_action_email_connect',
  'email.pull_add': 'audit_action_email_pull_add',
  'email.pull_remove': 'audit_action_email_pull_remove',
  'webhook.add': 'audit_action_webhook_add',
  'webhook.disable': 'audit_action_webhook_disable',
  'webhook.rotate_secret': 'audit_action_webhook_rotate_secret',
  'lead.export': 'audit_action_lead_export',
  'lead.erase': 'audit_action_lead_erase',
  'lead.owner_stage': 'audit_action_lead_owner_stage',
  'lead.owner_report_days': 'audit_action_lead_owner_report_days',
  'property.withdraw': 'audit_action_property_withdraw',
  'property.owner': 'audit_action_property_owner',
  'calendar.create': 'audit_action_calendar_create',
  'calendar.revoke': 'audit_action_calendar_revoke',
  'viewing.sheet_sign': 'audit_action_viewing_sheet_sign',
  'mandate.draft': 'audit_action_mandate_draft',
  'mandate.sign': 'audit_action_mandate_sign',
  'mandate.end': 'audit_action_mandate_end',
  'business.mandate_clause': 'audit_action_business_mandate_clause',
  'business.visit_sheet_clause': 'audit_action_business_visit_sheet_clause',
  'business.clock': 'audit_action_business_clock',
} as const satisfies Record<AuditAction, MessageKey>;

/** Why an e-mail waits for an agent, or was discarded (services/leads/email-intake.ts). */
export const EMAIL_REASON_LABEL = {
  'not readable as an e-mail': 'email_reason_unreadable',
  'no phone number or e-mail address found': 'email_reason_no_contact',
  'no phone number found: a lead needs one': 'email_reason_no_phone',
  'no name found': 'email_reason_no_name',
  'not read within its time limit': 'email_reason_timed_out',
  'discarded by an agent': 'email_reason_discarded',
} as const satisfies Record<(typeof NOT_UNDERSTOOD)[keyof typeof NOT_UNDERSTOOD] | typeof DISCARDED_BY_AGENT, MessageKey>;

/** A lead's source when it came by e-mail (CONTRACT §19): the portals by name, the generic parser's as words. */
export const EMAIL_SOURCE_LABEL = {
  idealista: 'source_idealista',
  fotocasa: 'source_fotocasa',
  habitaclia: 'source_habitaclia',
  'pisos.com': 'source_pisos_com',
  email: 'source_email',
} as const satisfies Record<string, MessageKey>;

/** The criterion a near miss fails (domain/leads/matching.ts), in words. */
export const MISSED_CRITERION_LABEL = {
  location: 'missed_location',
  operation: 'missed_operation',
  type: 'missed_type',
  subtypes: 'missed_subtypes',
  price_min: 'missed_price_min',
  price_max: 'missed_price_max',
  price_rent_min: 'missed_price_rent_min',
  price_rent_max: 'missed_price_rent_max',
  size_min: 'missed_size_min',
  size_max: 'missed_size_max',
  bedrooms_min: 'missed_bedrooms_min',
  bathrooms_min: 'missed_bathrooms_min',
  num_terraces_min: 'missed_num_terraces_min',
  size_terraces_min: 'missed_size_terraces_min',
  features: 'missed_features',
} as const satisfies Record<string, MessageKey>;

/** A viewing's status (CONTRACT §20). */
export const VIEWING_STATUS_LABEL = {
  requested: 'viewing_requested',
  scheduled: 'viewing_scheduled',
  confirmed: 'viewing_confirmed',
  done: 'viewing_done',
  cancelled: 'viewing_cancelled',
  no_show: 'viewing_no_show',
} as const satisfies Record<ViewingStatus, MessageKey>;

/** Where a viewing was booked (CONTRACT §20). */
export const VIEWING_SOURCE_LABEL = {
  console: 'viewing_source_console',
  assistant: 'viewing_source_assistant',
  api: 'viewing_source_api',
  website: 'viewing_source_website',
} as const satisfies Record<ViewingSource, MessageKey>;

/** The button of a change to a viewing's status (domain/viewings/status.ts). */
export const VIEWING_ACTION_LABEL = {
  confirm: 'viewing_confirm_submit',
  cancel: 'viewing_cancel_submit',
  done: 'viewing_done_submit',
  no_show: 'viewing_no_show_submit',
} as const satisfies Record<'confirm' | 'cancel' | 'done' | 'no_show', MessageKey>;

/** A lead's source (CONTRACT §6 `source`): the portals' and e-mail's words, and `manual` (entered by hand, or a request that named none); any other source is the integrator's own word, shown as given. */
export const LEAD_SOURCE_LABEL = {
  ...EMAIL_SOURCE_LABEL,
  manual: 'source_manual',
  web: 'source_web',
  api: 'source_api',
  // A listing's public page (CONTRACT §21; services/catalogue/listing-page.ts `PAGE_SOURCE`).
  listing_page: 'source_listing_page',
} as const satisfies Record<string, MessageKey>;

/**
 * A lead's source in words (CONTRACT §6 `source`): `manual` is "entered by hand" only for a lead
 * made in the console (`captured_by` `manual`); a request through the API that named no source
 * stores `manual` too, and is said to come through the API.
 */
export function leadSourceKey(source: string, capturedBy: string | null): MessageKey | undefined {
  if (source === 'manual' && capturedBy !== 'manual') return 'source_api_unnamed';
  return messageKeyOf(LEAD_SOURCE_LABEL, source);
}

/** Every vocabulary the templates label, by the name they call it: `it.label.leadStatus(s)`. */
export const LABELS = {
  leadStatus: LEAD_STATUS_LABEL,
  leadType: LEAD_TYPE_LABEL,
  interactionChannel: INTERACTION_CHANNEL_LABEL,
  alertReason: ALERT_REASON_LABEL,
  alertState: ALERT_STATE_LABEL,
  messageAuthor: MESSAGE_AUTHOR_LABEL,
  messageState: MESSAGE_STATE_LABEL,
  weekday: WEEKDAY_LABEL,
  followUpState: FOLLOW_UP_STATE_LABEL,
  viewingStatus: VIEWING_STATUS_LABEL,
  viewingSource: VIEWING_SOURCE_LABEL,
  viewingAction: VIEWING_ACTION_LABEL,
  missedCriterion: MISSED_CRITERION_LABEL,
  conversationState: CONVERSATION_STATE_LABEL,
  propertyStatus: PROPERTY_STATUS_LABEL,
  statusMove: STATUS_MOVE_LABEL,
  propertyType: PROPERTY_TYPE_LABEL,
  operation: OPERATION_LABEL,
  rentalType: RENTAL_TYPE_LABEL,
  addressPrivacy: ADDRESS_PRIVACY_LABEL,
  hiddenBecause: HIDDEN_BECAUSE_LABEL,
  listingField: LISTING_FIELD_LABEL,
  listingLanguage: LISTING_LANGUAGE_LABEL,
  leadLanguage: LEAD_LANGUAGE_LABEL,
  editField: EDIT_FIELD_LABEL,
  editCriterion: EDIT_CRITERION_LABEL,
  languageState: LANGUAGE_STATE_LABEL,
  certificateStatus: CERTIFICATE_STATUS_LABEL,
  condition: CONDITION_LABEL,
  importState: IMPORT_STATE_LABEL,
  feedFormat: FEED_FORMAT_LABEL,
  idealistaLeftOut: IDEALISTA_LEFT_OUT_LABEL,
  keyState: KEY_STATE_LABEL,
  keyKind: KEY_KIND_LABEL,
  keyKindShort: KEY_KIND_SHORT_LABEL,
  scope: SCOPE_LABEL,
  role: ROLE_LABEL,
  userState: USER_STATE_LABEL,
  auditAction: AUDIT_ACTION_LABEL,
  emailReason: EMAIL_REASON_LABEL,
  emailSource: EMAIL_SOURCE_LABEL,
  leadSource: LEAD_SOURCE_LABEL,
  ownerStage: OWNER_STAGE_LABEL,
} as const satisfies Record<string, Readonly<Record<string, MessageKey>>>;

/** A vocabulary's labeller: the words of a value, or the value itself when the vocabulary does not know it. */
export type Labels = { readonly [Vocabulary in keyof typeof LABELS]: (value: string) => string };

/**
 * The message key of `value` in a mapping (a vocabulary above, or the refusals a page explains),
 * or undefined when it has none. Own keys only: `constructor` finds nothing.
 */
export function messageKeyOf(mapping: Readonly<Record<string, MessageKey>>, value: string): MessageKey | undefined {
  return Object.hasOwn(mapping, value) ? mapping[value] : undefined;
}

/** A label of `mapping` in `t`'s language, or `value` as it is when the mapping has no words for it. */
export function labelOf(t: Translate, mapping: Readonly<Record<string, MessageKey>>, value: string): string {
  const key = messageKeyOf(mapping, value);
  return key === undefined ? value : t(key);
}

/** Every vocabulary's labeller in `t`'s language, for the templates (`it.label`). */
export function labeller(t: Translate): Labels {
  return Object.fromEntries(
    Object.entries(LABELS).map(([vocabulary, mapping]) => [vocabulary, (value: string) => labelOf(t, mapping, value)]),
  ) as unknown as Labels;
}
