/**
 * A published listing in a person's words (CONTRACT §21 "Listing page for recipients" and
 * "Listing sheet"): what the public page `/l/<token>` and the A4 sheet say of one listing, in the
 * lead-facing languages (es, en, fr, de, it; the spec's `gb` and `ge` read as en and de).
 *
 * Read from the published Property object (domain/catalogue/property-doc.ts), so the location is
 * exactly as precise as the API publishes it (§5: the full address, the approximate one, or the
 * city alone) and the description is the allowlisted HTML. Money is written as in Spain (es-ES,
 * whatever the language, as alerts do); other numbers in the language's own way. No code of a
 * vocabulary reaches the person: operations, types, conditions, certificate states and the
 * catalogue's features are words here, and a feature the catalogue does not know is shown by
 * the label its import gave, or not at all.
 */
import { docInLanguage, LISTING_LANGUAGES, type ListingLanguage, publishedTextsOf } from './languages.ts';
import { ENERGY_RATINGS, type EnergyRating, listingFacts } from './listing-facts.ts';
import type { Condition, CertificateStatus } from './listing-facts.ts';
import type { Operation, PropertyType } from './terms.ts';

/** What one language says on the page and the sheet. `{…}` are filled in. */
export interface ListingWords {
  /** The language's own name, for the language switch. */
  languageName: string;
  languages: string;
  /** A listing without a title: `{type}` (and `{city}`). */
  untitled: string;
  untitledIn: string;
  perMonth: string;
  transfer: string;
  operations: Record<Operation, string>;
  types: Record<PropertyType, string>;
  conditions: Record<Condition, string>;
  certificate: Record<CertificateStatus, string>;
  features: Record<string, string>;
  facts: string;
  operation: string;
  type: string;
  size: string;
  bedrooms: string;
  bathrooms: string;
  floor: string;
  yearBuilt: string;
  condition: string;
  communityFees: string;
  /** `{amount}` a month. */
  communityFeesValue: string;
  energy: string;
  energyScale: string;
  energyThis: string;
  /** `{consumption}`, `{emissions}`. */
  energyFigures: string;
  location: string;
  locationApproximate: string;
  locationHidden: string;
  map: string;
  description: string;
  featuresHeading: string;
  photos: string;
  /** `{n}`, `{total}`. */
  photo: string;
  contact: string;
  /** `{business}`. */
  contactIntro: string;
  email: string;
  /** The sheet's QR code's caption. */
  scan: string;
  /** The sheet's footer: `{business}`. */
  offeredBy: string;
  /** The inquiry form. */
  form: string;
  name: string;
  phone: string;
  message: string;
  optional: string;
  consent: string;
  trap: string;
  send: string;
  sent: string;
  required: string;
  tooLong: string;
  consentRequired: string;
  badPhone: string;
  badEmail: string;
  fix: string;
  failed: string;
  throttled: string;
  /** The viewing form (CONTRACT §21, §20): heading, intro, the slot's label and first choice, none free, submit. */
  visit: string;
  visitIntro: string;
  slot: string;
  slotChoose: string;
  noSlots: string;
  visitSend: string;
  /** Consent of the viewing form. */
  visitConsent: string;
  slotRequired: string;
  /** The slot chosen was taken meanwhile: choose another. */
  slotTaken: string;
  /** The slot chosen can no longer be asked for (past, or outside the hours now). */
  slotGone: string;
  /** The thank-you page: its title, its text (`{when}`, `{business}`), the link back. */
  thanksTitle: string;
  thanksText: string;
  back: string;
  /** The page of a listing no longer offered (410). */
  goneTitle: string;
  /** `{business}`. */
  goneText: string;
  goneContact: string;
}

const es: ListingWords = {
  languageName: 'Español',
  languages: 'Idioma',
  untitled: '{type}',
  untitledIn: '{type} en {city}',
  perMonth: '/mes',
  transfer: 'Traspaso',
  operations: { venta: 'En venta', alquiler: 'En alquiler', traspaso: 'En traspaso' },
  types: {
    apartamento: 'Piso',
    casa: 'Casa',
    local: 'Local',
    nave: 'Nave',
    almacenaje: 'Trastero',
    oficina: 'Oficina',
    terreno: 'Terreno',
    aparcamiento: 'Plaza de garaje',
    edificio: 'Edificio',
  },
  conditions: { 'obra-nueva': 'Obra nueva', 'buen-estado': 'Buen estado', 'a-reformar': 'A reformar' },
  certificate: { available: 'Disponible', in_process: 'En trámite', exempt: 'Exento' },
  features: {
    exterior: 'Exterior',
    ascensor: 'Ascensor',
    armarios_empotrados: 'Armarios empotrados',
    aire_acondicionado: 'Aire acondicionado',
    terraza: 'Terraza',
    patio: 'Patio',
    trastero: 'Trastero',
    garaje: 'Plaza de garaje',
    jardin: 'Jardín',
    piscina: 'Piscina',
  },
  facts: 'Datos del inmueble',
  operation: 'Operación',
  type: 'Tipo',
  size: 'Superficie',
  bedrooms: 'Dormitorios',
  bathrooms: 'Baños',
  floor: 'Planta',
  yearBuilt: 'Año de construcción',
  condition: 'Estado',
  communityFees: 'Gastos de comunidad',
  communityFeesValue: '{amount} al mes',
  energy: 'Certificado energético',
  energyScale: 'Escala de calificación energética, de A (más eficiente) a G',
  energyThis: 'este inmueble',
  energyFigures: 'Consumo: {consumption} kWh/m² año · Emisiones: {emissions} kg CO2/m² año',
  location: 'Ubicación',
  locationApproximate: 'Ubicación aproximada',
  locationHidden: 'La dirección exacta se facilita al concertar una visita.',
  map: 'Ver en el mapa (OpenStreetMap)',
  description: 'Descripción',
  featuresHeading: 'Características',
  photos: 'Fotos',
  photo: 'Foto {n} de {total}',
  contact: 'Contacto',
  contactIntro: 'Pregunta a {business} por este inmueble:',
  email: 'Correo electrónico',
  scan: 'Escanea el código para ver el inmueble y sus fotos en línea',
  offeredBy: 'Inmueble ofrecido por {business}',
  form: 'Pregunta por este inmueble',
  name: 'Nombre',
  phone: 'Teléfono',
  message: 'Mensaje',
  optional: 'opcional',
  consent: 'Acepto que la agencia me contacte por WhatsApp, teléfono o correo sobre mi consulta.',
  trap: 'Deja este campo vacío',
  send: 'Enviar',
  sent: '¡Gracias! Hemos recibido tu consulta y te contactaremos pronto.',
  required: 'Este campo es obligatorio.',
  tooLong: 'Este texto es demasiado largo.',
  consentRequired: 'Marca la casilla para que podamos contactarte.',
  badPhone: 'Escribe un teléfono válido, por ejemplo 612 34 56 78 o +44 7911 123456.',
  badEmail: 'Escribe un correo electrónico válido.',
  fix: 'Revisa los campos marcados.',
  failed: 'No se ha podido enviar. Inténtalo de nuevo en unos minutos.',
  throttled: 'Se han enviado demasiadas consultas desde tu conexión. Inténtalo de nuevo en unos minutos.',
  visit: 'Pide una visita',
  visitIntro: 'Elige un día y una hora libres en los próximos 7 días; {business} te confirmará la visita.',
  slot: 'Día y hora',
  slotChoose: 'Elige un día y una hora',
  noSlots: 'No quedan horas libres en los próximos 7 días: pregúntanos con el formulario de abajo.',
  visitSend: 'Pedir visita',
  visitConsent: 'Acepto que la agencia me contacte por WhatsApp, teléfono o correo sobre mi visita.',
  slotRequired: 'Elige un día y una hora.',
  slotTaken: 'Esa hora se acaba de ocupar: elige otra.',
  slotGone: 'Esa hora ya no se puede pedir: elige otra.',
  thanksTitle: '¡Gracias! Hemos recibido tu petición de visita',
  thanksText: 'Has pedido visitar el inmueble el {when}. {business} te confirmará la visita.',
  back: 'Volver al inmueble',
  goneTitle: 'Este inmueble ya no está disponible',
  goneText: '{business} ya no ofrece este inmueble: se ha vendido, alquilado o retirado.',
  goneContact: 'Si buscas algo parecido, escríbenos:',
};

const en: ListingWords = {
  languageName: 'English',
  languages: 'Language',
  untitled: '{type}',
  untitledIn: '{type} in {city}',
  perMonth: '/month',
  transfer: 'Business transfer',
  operations: { venta: 'For sale', alquiler: 'For rent', traspaso: 'Business transfer' },
  types: {
    apartamento: 'Flat',
    casa: 'House',
    local: 'Commercial premises',
    nave: 'Industrial unit',
    almacenaje: 'Storage room',
    oficina: 'Office',
    terreno: 'Land',
    aparcamiento: 'Parking space',
    edificio: 'Building',
  },
  conditions: { 'obra-nueva': 'New build', 'buen-estado': 'Good condition', 'a-reformar': 'Needs renovation' },
  certificate: { available: 'Available', in_process: 'Being obtained', exempt: 'Exempt' },
  features: {
    exterior: 'Exterior facing',
    ascensor: 'Lift',
    armarios_empotrados: 'Built-in wardrobes',
    aire_acondicionado: 'Air conditioning',
    terraza: 'Terrace',
    patio: 'Patio',
    trastero: 'Storage room',
    garaje: 'Parking space',
    jardin: 'Garden',
    piscina: 'Swimming pool',
  },
  facts: 'Property details',
  operation: 'Offer',
  type: 'Type',
  size: 'Floor area',
  bedrooms: 'Bedrooms',
  bathrooms: 'Bathrooms',
  floor: 'Floor',
  yearBuilt: 'Year built',
  condition: 'Condition',
  communityFees: 'Community fees',
  communityFeesValue: '{amount} a month',
  energy: 'Energy certificate',
  energyScale: 'Energy rating scale, from A (most efficient) to G',
  energyThis: 'this property',
  energyFigures: 'Consumption: {consumption} kWh/m² a year · Emissions: {emissions} kg CO2/m² a year',
  location: 'Location',
  locationApproximate: 'Approximate location',
  locationHidden: 'The exact address is given when a viewing is arranged.',
  map: 'See on the map (OpenStreetMap)',
  description: 'Description',
  featuresHeading: 'Features',
  photos: 'Photos',
  photo: 'Photo {n} of {total}',
  contact: 'Contact',
  contactIntro: 'Ask {business} about this property:',
  email: 'Email',
  scan: 'Scan the code to see the property and its photos online',
  offeredBy: 'Property offered by {business}',
  form: 'Ask about this property',
  name: 'Name',
  phone: 'Phone',
  message: 'Message',
  optional: 'optional',
  consent: 'I agree that the agency contacts me by WhatsApp, phone or email about my inquiry.',
  trap: 'Leave this field empty',
  send: 'Send',
  sent: 'Thank you! We have received your inquiry and will contact you soon.',
  required: 'This field is required.',
  tooLong: 'This text is too long.',
  consentRequired: 'Tick the box so that we may contact you.',
  badPhone: 'Enter a valid phone number, e.g. 612 34 56 78 or +44 7911 123456.',
  badEmail: 'Enter a valid email address.',
  fix: 'Check the fields marked.',
  failed: 'It could not be sent. Try again in a few minutes.',
  throttled: 'Too many inquiries have been sent from your connection. Try again in a few minutes.',
  visit: 'Ask for a viewing',
  visitIntro: 'Choose a free day and time in the next 7 days; {business} will confirm the viewing.',
  slot: 'Day and time',
  slotChoose: 'Choose a day and time',
  noSlots: 'No time is free in the next 7 days: ask us with the form below.',
  visitSend: 'Ask for a viewing',
  visitConsent: 'I agree that the agency contacts me by WhatsApp, phone or email about my viewing.',
  slotRequired: 'Choose a day and time.',
  slotTaken: 'That time has just been taken: choose another.',
  slotGone: 'That time can no longer be asked for: choose another.',
  thanksTitle: 'Thank you! We have received your viewing request',
  thanksText: 'You asked to view the property on {when}. {business} will confirm the viewing.',
  back: 'Back to the property',
  goneTitle: 'This property is no longer available',
  goneText: '{business} no longer offers this property: it has been sold, rented or withdrawn.',
  goneContact: 'If you are looking for something similar, write to us:',
};

const fr: ListingWords = {
  languageName: 'Français',
  languages: 'Langue',
  untitled: '{type}',
  untitledIn: '{type} à {city}',
  perMonth: '/mois',
  transfer: 'Cession de bail',
  operations: { venta: 'À vendre', alquiler: 'À louer', traspaso: 'Cession de bail' },
  types: {
    apartamento: 'Appartement',
    casa: 'Maison',
    local: 'Local commercial',
    nave: 'Entrepôt',
    almacenaje: 'Débarras',
    oficina: 'Bureau',
    terreno: 'Terrain',
    aparcamiento: 'Place de parking',
    edificio: 'Immeuble',
  },
  conditions: { 'obra-nueva': 'Neuf', 'buen-estado': 'Bon état', 'a-reformar': 'À rénover' },
  certificate: { available: 'Disponible', in_process: 'En cours', exempt: 'Exempté' },
  features: {
    exterior: 'Donnant sur l’extérieur',
    ascensor: 'Ascenseur',
    armarios_empotrados: 'Placards intégrés',
    aire_acondicionado: 'Climatisation',
    terraza: 'Terrasse',
    patio: 'Cour',
    trastero: 'Débarras',
    garaje: 'Place de parking',
    jardin: 'Jardin',
    piscina: 'Piscine',
  },
  facts: 'Caractéristiques du bien',
  operation: 'Offre',
  type: 'Type',
  size: 'Surface',
  bedrooms: 'Chambres',
  bathrooms: 'Salles de bains',
  floor: 'Étage',
  yearBuilt: 'Année de construction',
  condition: 'État',
  communityFees: 'Charges de copropriété',
  communityFeesValue: '{amount} par mois',
  energy: 'Certificat énergétique',
  energyScale: 'Échelle de performance énergétique, de A (la plus efficace) à G',
  energyThis: 'ce bien',
  energyFigures: 'Consommation : {consumption} kWh/m² par an · Émissions : {emissions} kg CO2/m² par an',
  location: 'Situation',
  locationApproximate: 'Situation approximative',
  locationHidden: 'L’adresse exacte est communiquée lors de l’organisation d’une visite.',
  map: 'Voir sur la carte (OpenStreetMap)',
  description: 'Description',
  featuresHeading: 'Équipements',
  photos: 'Photos',
  photo: 'Photo {n} sur {total}',
  contact: 'Contact',
  contactIntro: 'Posez vos questions sur ce bien à {business} :',
  email: 'E-mail',
  scan: 'Scannez le code pour voir le bien et ses photos en ligne',
  offeredBy: 'Bien proposé par {business}',
  form: 'Demander des informations sur ce bien',
  name: 'Nom',
  phone: 'Téléphone',
  message: 'Message',
  optional: 'facultatif',
  consent: 'J’accepte que l’agence me contacte par WhatsApp, téléphone ou e-mail au sujet de ma demande.',
  trap: 'Laissez ce champ vide',
  send: 'Envoyer',
  sent: 'Merci ! Nous avons bien reçu votre demande et vous contacterons bientôt.',
  required: 'Ce champ est obligatoire.',
  tooLong: 'Ce texte est trop long.',
  consentRequired: 'Cochez la case pour que nous puissions vous contacter.',
  badPhone: 'Saisissez un numéro de téléphone valide, par exemple +33 6 12 34 56 78.',
  badEmail: 'Saisissez une adresse e-mail valide.',
  fix: 'Vérifiez les champs signalés.',
  failed: 'L’envoi a échoué. Réessayez dans quelques minutes.',
  throttled: 'Trop de demandes ont été envoyées depuis votre connexion. Réessayez dans quelques minutes.',
  visit: 'Demander une visite',
  visitIntro: 'Choisissez un jour et une heure libres dans les 7 prochains jours ; {business} vous confirmera la visite.',
  slot: 'Jour et heure',
  slotChoose: 'Choisissez un jour et une heure',
  noSlots: 'Aucune heure n’est libre dans les 7 prochains jours : posez-nous la question avec le formulaire ci-dessous.',
  visitSend: 'Demander une visite',
  visitConsent: 'J’accepte que l’agence me contacte par WhatsApp, téléphone ou e-mail au sujet de ma visite.',
  slotRequired: 'Choisissez un jour et une heure.',
  slotTaken: 'Cette heure vient d’être prise : choisissez-en une autre.',
  slotGone: 'Cette heure ne peut plus être demandée : choisissez-en une autre.',
  thanksTitle: 'Merci ! Nous avons bien reçu votre demande de visite',
  thanksText: 'Vous avez demandé à visiter le bien le {when}. {business} vous confirmera la visite.',
  back: 'Retour au bien',
  goneTitle: 'Ce bien n’est plus disponible',
  goneText: '{business} ne propose plus ce bien : il a été vendu, loué ou retiré.',
  goneContact: 'Si vous cherchez un bien semblable, écrivez-nous :',
};

const de: ListingWords = {
  languageName: 'Deutsch',
  languages: 'Sprache',
  untitled: '{type}',
  untitledIn: '{type} in {city}',
  perMonth: '/Monat',
  transfer: 'Ablöse',
  operations: { venta: 'Zu verkaufen', alquiler: 'Zu vermieten', traspaso: 'Zur Übernahme' },
  types: {
    apartamento: 'Wohnung',
    casa: 'Haus',
    local: 'Ladenlokal',
    nave: 'Lagerhalle',
    almacenaje: 'Abstellraum',
    oficina: 'Büro',
    terreno: 'Grundstück',
    aparcamiento: 'Stellplatz',
    edificio: 'Gebäude',
  },
  conditions: { 'obra-nueva': 'Neubau', 'buen-estado': 'Guter Zustand', 'a-reformar': 'Renovierungsbedürftig' },
  certificate: { available: 'Vorhanden', in_process: 'In Bearbeitung', exempt: 'Nicht erforderlich' },
  features: {
    exterior: 'Außenlage',
    ascensor: 'Aufzug',
    armarios_empotrados: 'Einbauschränke',
    aire_acondicionado: 'Klimaanlage',
    terraza: 'Terrasse',
    patio: 'Innenhof',
    trastero: 'Abstellraum',
    garaje: 'Stellplatz',
    jardin: 'Garten',
    piscina: 'Schwimmbad',
  },
  facts: 'Objektdaten',
  operation: 'Angebot',
  type: 'Art',
  size: 'Fläche',
  bedrooms: 'Schlafzimmer',
  bathrooms: 'Badezimmer',
  floor: 'Etage',
  yearBuilt: 'Baujahr',
  condition: 'Zustand',
  communityFees: 'Hausgeld',
  communityFeesValue: '{amount} im Monat',
  energy: 'Energieausweis',
  energyScale: 'Energieeffizienzskala, von A (am effizientesten) bis G',
  energyThis: 'diese Immobilie',
  energyFigures: 'Verbrauch: {consumption} kWh/m² im Jahr · Emissionen: {emissions} kg CO2/m² im Jahr',
  location: 'Lage',
  locationApproximate: 'Ungefähre Lage',
  locationHidden: 'Die genaue Adresse erhalten Sie, wenn eine Besichtigung vereinbart wird.',
  map: 'Auf der Karte ansehen (OpenStreetMap)',
  description: 'Beschreibung',
  featuresHeading: 'Ausstattung',
  photos: 'Fotos',
  photo: 'Foto {n} von {total}',
  contact: 'Kontakt',
  contactIntro: 'Fragen Sie {business} nach dieser Immobilie:',
  email: 'E-Mail',
  scan: 'Scannen Sie den Code, um die Immobilie und ihre Fotos online zu sehen',
  offeredBy: 'Immobilie angeboten von {business}',
  form: 'Anfrage zu dieser Immobilie',
  name: 'Name',
  phone: 'Telefon',
  message: 'Nachricht',
  optional: 'optional',
  consent: 'Ich bin einverstanden, dass die Agentur mich per WhatsApp, Telefon oder E-Mail zu meiner Anfrage kontaktiert.',
  trap: 'Lassen Sie dieses Feld leer',
  send: 'Senden',
  sent: 'Vielen Dank! Wir haben Ihre Anfrage erhalten und melden uns bald.',
  required: 'Dieses Feld ist erforderlich.',
  tooLong: 'Dieser Text ist zu lang.',
  consentRequired: 'Kreuzen Sie das Kästchen an, damit wir Sie kontaktieren dürfen.',
  badPhone: 'Geben Sie eine gültige Telefonnummer ein, z. B. +49 151 23456789.',
  badEmail: 'Geben Sie eine gültige E-Mail-Adresse ein.',
  fix: 'Prüfen Sie die markierten Felder.',
  failed: 'Das Senden ist fehlgeschlagen. Versuchen Sie es in einigen Minuten erneut.',
  throttled: 'Von Ihrer Verbindung wurden zu viele Anfragen gesendet. Versuchen Sie es in einigen Minuten erneut.',
  visit: 'Besichtigung anfragen',
  visitIntro: 'Wählen Sie einen freien Tag und eine freie Uhrzeit in den nächsten 7 Tagen; {business} bestätigt Ihnen die Besichtigung.',
  slot: 'Tag und Uhrzeit',
  slotChoose: 'Tag und Uhrzeit wählen',
  noSlots: 'In den nächsten 7 Tagen ist keine Zeit frei: fragen Sie uns mit dem Formular unten.',
  visitSend: 'Besichtigung anfragen',
  visitConsent: 'Ich bin einverstanden, dass die Agentur mich per WhatsApp, Telefon oder E-Mail zu meiner Besichtigung kontaktiert.',
  slotRequired: 'Wählen Sie einen Tag und eine Uhrzeit.',
  slotTaken: 'Diese Uhrzeit wurde gerade vergeben: wählen Sie eine andere.',
  slotGone: 'Diese Uhrzeit kann nicht mehr angefragt werden: wählen Sie eine andere.',
  thanksTitle: 'Vielen Dank! Wir haben Ihre Besichtigungsanfrage erhalten',
  thanksText: 'Sie möchten die Immobilie am {when} besichtigen. {business} bestätigt Ihnen die Besichtigung.',
  back: 'Zurück zur Immobilie',
  goneTitle: 'Diese Immobilie ist nicht mehr verfügbar',
  goneText: '{business} bietet diese Immobilie nicht mehr an: Sie wurde verkauft, vermietet oder zurückgezogen.',
  goneContact: 'Wenn Sie etwas Ähnliches suchen, schreiben Sie uns:',
};

const it: ListingWords = {
  languageName: 'Italiano',
  languages: 'Lingua',
  untitled: '{type}',
  untitledIn: '{type} a {city}',
  perMonth: '/mese',
  transfer: 'Cessione d’attività',
  operations: { venta: 'In vendita', alquiler: 'In affitto', traspaso: 'Cessione d’attività' },
  types: {
    apartamento: 'Appartamento',
    casa: 'Casa',
    local: 'Locale commerciale',
    nave: 'Capannone',
    almacenaje: 'Ripostiglio',
    oficina: 'Ufficio',
    terreno: 'Terreno',
    aparcamiento: 'Posto auto',
    edificio: 'Edificio',
  },
  conditions: { 'obra-nueva': 'Nuova costruzione', 'buen-estado': 'Buono stato', 'a-reformar': 'Da ristrutturare' },
  certificate: { available: 'Disponibile', in_process: 'In corso', exempt: 'Esente' },
  features: {
    exterior: 'Esterno',
    ascensor: 'Ascensore',
    armarios_empotrados: 'Armadi a muro',
    aire_acondicionado: 'Aria condizionata',
    terraza: 'Terrazzo',
    patio: 'Cortile',
    trastero: 'Ripostiglio',
    garaje: 'Posto auto',
    jardin: 'Giardino',
    piscina: 'Piscina',
  },
  facts: 'Dati dell’immobile',
  operation: 'Offerta',
  type: 'Tipologia',
  size: 'Superficie',
  bedrooms: 'Camere da letto',
  bathrooms: 'Bagni',
  floor: 'Piano',
  yearBuilt: 'Anno di costruzione',
  condition: 'Stato',
  communityFees: 'Spese condominiali',
  communityFeesValue: '{amount} al mese',
  energy: 'Certificato energetico',
  energyScale: 'Scala della classe energetica, da A (la più efficiente) a G',
  energyThis: 'questo immobile',
  energyFigures: 'Consumo: {consumption} kWh/m² anno · Emissioni: {emissions} kg CO2/m² anno',
  location: 'Posizione',
  locationApproximate: 'Posizione approssimativa',
  locationHidden: 'L’indirizzo esatto viene fornito quando si concorda una visita.',
  map: 'Vedi sulla mappa (OpenStreetMap)',
  description: 'Descrizione',
  featuresHeading: 'Caratteristiche',
  photos: 'Foto',
  photo: 'Foto {n} di {total}',
  contact: 'Contatti',
  contactIntro: 'Chiedi a {business} di questo immobile:',
  email: 'E-mail',
  scan: 'Inquadra il codice per vedere l’immobile e le sue foto online',
  offeredBy: 'Immobile offerto da {business}',
  form: 'Chiedi informazioni su questo immobile',
  name: 'Nome',
  phone: 'Telefono',
  message: 'Messaggio',
  optional: 'facoltativo',
  consent: 'Accetto che l’agenzia mi contatti via WhatsApp, telefono o e-mail riguardo alla mia richiesta.',
  trap: 'Lascia vuoto questo campo',
  send: 'Invia',
  sent: 'Grazie! Abbiamo ricevuto la tua richiesta e ti contatteremo presto.',
  required: 'Questo campo è obbligatorio.',
  tooLong: 'Questo testo è troppo lungo.',
  consentRequired: 'Spunta la casella perché possiamo contattarti.',
  badPhone: 'Scrivi un numero di telefono valido, ad esempio +39 312 345 6789.',
  badEmail: 'Scrivi un indirizzo e-mail valido.',
  fix: 'Controlla i campi segnalati.',
  failed: 'Non è stato possibile inviare. Riprova tra qualche minuto.',
  throttled: 'Dalla tua connessione sono state inviate troppe richieste. Riprova tra qualche minuto.',
  visit: 'Chiedi una visita',
  visitIntro: 'Scegli un giorno e un orario liberi nei prossimi 7 giorni; {business} ti confermerà la visita.',
  slot: 'Giorno e ora',
  slotChoose: 'Scegli giorno e ora',
  noSlots: 'Nei prossimi 7 giorni non ci sono orari liberi: chiedicelo con il modulo qui sotto.',
  visitSend: 'Chiedi una visita',
  visitConsent: 'Accetto che l’agenzia mi contatti via WhatsApp, telefono o e-mail riguardo alla mia visita.',
  slotRequired: 'Scegli un giorno e un orario.',
  slotTaken: 'Quell’orario è appena stato preso: scegline un altro.',
  slotGone: 'Quell’orario non si può più chiedere: scegline un altro.',
  thanksTitle: 'Grazie! Abbiamo ricevuto la tua richiesta di visita',
  thanksText: 'Hai chiesto di visitare l’immobile il {when}. {business} ti confermerà la visita.',
  back: 'Torna all’immobile',
  goneTitle: 'Questo immobile non è più disponibile',
  goneText: '{business} non offre più questo immobile: è stato venduto, affittato o ritirato.',
  goneContact: 'Se cerchi qualcosa di simile, scrivici:',
};

/** The words of every lead-facing language. */
export const LISTING_WORDS: Readonly<Record<ListingLanguage, ListingWords>> = { es, en, fr, de, it };

/** `{name}` placeholders of `text` filled from `values`. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}

/** Euros as written in Spain (es-ES), whole euros: `250.000 €`. */
export function euros(amount: number): string {
  return EUROS.format(amount);
}
const EUROS = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 });

/** The locale a language writes numbers in. */
const LOCALE: Record<ListingLanguage, string> = { es: 'es-ES', en: 'en-GB', fr: 'fr-FR', de: 'de-DE', it: 'it-IT' };

/** A photo of the listing as published: its URL, its title (plain text) and whether it is the primary one. */
export interface ListingPhoto {
  url: string;
  title: string | null;
  primary: boolean;
}

/** One fact: its label and its value, in words. */
export interface ListingFact {
  label: string;
  value: string;
}

/** The listing in words (see the module's comment). Text is plain, but `description` (allowlisted HTML). */
export interface ListingView {
  lang: ListingLanguage;
  words: ListingWords;
  title: string;
  /** The language the title is written in (the page's when held, else the listing's default). */
  titleLang: ListingLanguage;
  /** Sale price, rent a month, transfer price: each written, in that order, as the listing states them. */
  prices: string[];
  /** Type and operation in a line: `Piso · En venta`. */
  kind: string;
  facts: ListingFact[];
  /** The energy certificate: its rating (A–G) or, without one, its state in words; null when not stated. */
  energy: { rating: EnergyRating | null; state: string | null; figures: string | null } | null;
  /** Where it is, as published: a heading, the lines of the address, and a map position (null when hidden). */
  location: { heading: string; lines: string[]; note: string | null; map: { lat: number; lon: number; zoom: number } | null };
  /** Allowlisted HTML; null when there is none. */
  description: string | null;
  descriptionLang: ListingLanguage;
  features: string[];
  /** Public photos by their order, the primary one first. */
  photos: ListingPhoto[];
}

/** The published Property object's fields read here (CONTRACT §5). */
interface PublishedProperty {
  operation?: string | null;
  type?: string | null;
  title?: string | null;
  price?: number | null;
  size_total?: number | null;
  bedrooms?: number | null;
  bathrooms?: number | null;
  postal_code?: string | null;
  description?: string | null;
  images?: Array<{ url: string; order: number; is_primary: boolean; title: string | null }> | null;
  specs?: Record<string, unknown> | null;
  features?: Array<{ key?: unknown; label?: unknown; value?: unknown }> | null;
  address?: string | null;
  city?: string | null;
  province?: string | null;
  lat?: number | null;
  lon?: number | null;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * A published listing in words, in language `lang`.
 * @param apiDoc the stored Property object (`property_docs.api_doc`, JSON without `id`).
 * @param langTexts its published texts per language (`property_docs.lang_texts`).
 * @param lang the page's language.
 */
export function listingView(apiDoc: string, langTexts: string | null, lang: ListingLanguage): ListingView {
  const words = LISTING_WORDS[lang];
  const doc = JSON.parse(docInLanguage(apiDoc, langTexts, lang)) as PublishedProperty;
  const held = publishedTextsOf(JSON.parse(apiDoc) as Record<string, unknown>, langTexts);
  // Which language each shown text is in: the page's when held, else the listing's default (its first held).
  const defaultLang = LISTING_LANGUAGES.find((l) => held[l]) ?? 'es';
  const titleLang = held[lang]?.title ? lang : defaultLang;
  const descriptionLang = held[lang]?.description ? lang : defaultLang;
  const number = (n: number) => n.toLocaleString(LOCALE[lang], { maximumFractionDigits: 2 });

  const type = doc.type && Object.hasOwn(words.types, doc.type) ? words.types[doc.type as PropertyType] : null;
  const operations = (doc.operation ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o): o is Operation => Object.hasOwn(words.operations, o));
  const city = text(doc.city);
  const title =
    text(doc.title) ?? fill(city ? words.untitledIn : words.untitled, { type: type ?? words.types.apartamento, city: city ?? '' });

  const specs = doc.specs ?? {};
  const calc = (specs.price_calc ?? {}) as { price_alq?: unknown; price_trasp?: unknown };
  const prices: string[] = [];
  if (isNumber(doc.price) && (operations.length === 0 || operations.includes('venta') || !isNumber(calc.price_alq)))
    prices.push(euros(doc.price));
  if (isNumber(calc.price_alq)) prices.push(`${euros(calc.price_alq)}${words.perMonth}`);
  if (isNumber(calc.price_trasp)) prices.push(`${words.transfer}: ${euros(calc.price_trasp)}`);

  const facts: ListingFact[] = [];
  const fact = (label: string, value: string | null) => {
    if (value !== null) facts.push({ label, value });
  };
  fact(words.operation, operations.length ? operations.map((o) => words.operations[o]).join(', ') : null);
  fact(words.type, type);
  fact(words.size, isNumber(doc.size_total) ? `${number(doc.size_total)} m²` : null);
  fact(words.bedrooms, isNumber(doc.bedrooms) ? number(doc.bedrooms) : null);
  fact(words.bathrooms, isNumber(doc.bathrooms) ? number(doc.bathrooms) : null);
  const listed = listingFacts(specs);
  fact(words.floor, listed.floor === null ? null : String(listed.floor));
  fact(words.yearBuilt, listed.year_built === null ? null : String(listed.year_built));
  fact(words.condition, listed.condition === null ? null : words.conditions[listed.condition]);
  fact(
    words.communityFees,
    listed.community_fees === null ? null : fill(words.communityFeesValue, { amount: euros(listed.community_fees) }),
  );

  const certificate = listed.energy_certificate;
  let energy: ListingView['energy'] = null;
  if (certificate && Object.hasOwn(words.certificate, certificate.status)) {
    const rating =
      certificate.rating !== null && (ENERGY_RATINGS as readonly string[]).includes(certificate.rating) ? certificate.rating : null;
    const { consumption_kwh_m2_year: consumption, emissions_kg_co2_m2_year: emissions } = certificate;
    energy = {
      rating,
      state: rating === null ? words.certificate[certificate.status] : null,
      figures:
        rating !== null && (isNumber(consumption) || isNumber(emissions))
          ? fill(words.energyFigures, {
              consumption: isNumber(consumption) ? number(consumption) : '—',
              emissions: isNumber(emissions) ? number(emissions) : '—',
            })
          : null,
    };
  }

  // Exactly what the API publishes (§5): `address` is the full or the approximate one, or absent.
  const privacy = specs.address_privacy;
  const postal = text(doc.postal_code);
  const province = text(doc.province);
  const place = [postal && city ? `${postal} ${city}` : (city ?? postal), province !== null && province !== city ? province : null].filter(
    (part): part is string => part !== null,
  );
  const lines = [text(doc.address), place.length ? place.join(', ') : null].filter((l): l is string => l !== null);
  const hidden = privacy === 'hidden';
  const location: ListingView['location'] = {
    heading: privacy === 'approximate' ? words.locationApproximate : words.location,
    lines,
    note: hidden ? words.locationHidden : null,
    map: !hidden && isNumber(doc.lat) && isNumber(doc.lon) ? { lat: doc.lat, lon: doc.lon, zoom: privacy === 'public' ? 17 : 14 } : null,
  };

  const features = (doc.features ?? []).flatMap((f) => {
    if (f.value === false || f.value === 0 || f.value === 'false') return [];
    const key = typeof f.key === 'string' ? f.key : '';
    const label = Object.hasOwn(words.features, key) ? words.features[key] : text(f.label);
    return label === null ? [] : [label];
  });

  const photos = [...(doc.images ?? [])]
    .sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.order - b.order)
    .map((image) => ({ url: image.url, title: text(image.title), primary: image.is_primary }));

  return {
    lang,
    words,
    title,
    titleLang,
    prices,
    kind: [type, ...operations.map((o) => words.operations[o])].filter(Boolean).join(' · '),
    facts,
    energy,
    location,
    description: text(doc.description),
    descriptionLang,
    features: [...new Set(features)],
    photos,
  };
}
