/**
 * What an owner is told in a report (CONTRACT §24, issue 58 item 4), pure: the e-mail linking its
 * page `/o/<token>`, the WhatsApp template's parameters, and the words of the page. In the owner's
 * language (es, en, fr, de, it), numbers and dates in that language's forms, sources in words; no
 * code, id or visitor reaches the owner.
 */
import type { ReportSource } from '../owners/owner-report.ts';
import { linkEmail, oneLine } from './welcome-email.ts';

/** What one language says. `{business}`, `{name}`, `{days}` are filled in. */
export interface ReportWording {
  locale: string;
  subject: string;
  greeting: string;
  greetingNamed: string;
  body: string;
  button: string;
  closing: string;
  /** The page. */
  title: string;
  period: string;
  daysOnMarket: string;
  views: string;
  pageViews: string;
  kitViews: string;
  inPeriod: string;
  sinceListed: string;
  leads: string;
  noLeads: string;
  viewings: string;
  noViewings: string;
  interest: string;
  viewingsTotal: string;
  matching: string;
  sent: string;
  prices: string;
  priceFrom: string;
  priceM2: string;
  comparables: string;
  noComparables: string;
  monthly: string;
  sources: Record<ReportSource, string>;
}

const WORDS: Readonly<Record<string, ReportWording>> = {
  es: {
    locale: 'es-ES',
    subject: 'El informe de su inmueble',
    greeting: 'Hola:',
    greetingNamed: 'Hola, {name}:',
    body: 'Le enviamos el informe de los últimos {days} días: visitas a su anuncio, interesados, visitas hechas y cómo está su precio frente a inmuebles parecidos.',
    button: 'Ver el informe',
    closing: 'Un saludo,\n{business}',
    title: 'Informe para el propietario',
    period: 'Periodo',
    daysOnMarket: 'Días en el mercado',
    views: 'Veces que se ha visto el anuncio',
    pageViews: 'Página del inmueble',
    kitViews: 'Web de la agencia',
    inPeriod: 'En este periodo',
    sinceListed: 'Desde que se publicó',
    leads: 'Interesados por origen',
    noLeads: 'Aún no hay interesados.',
    viewings: 'Visitas hechas en este periodo',
    noViewings: 'No hubo visitas en este periodo.',
    interest: 'Interés (1 a 5)',
    viewingsTotal: 'Visitas hechas desde que se publicó',
    matching: 'Compradores que buscan algo así ahora',
    sent: 'A cuántos se lo hemos enviado',
    prices: 'Historial de precio',
    priceFrom: 'Desde',
    priceM2: 'Su precio por m²',
    comparables: 'Mediana de {count} inmuebles parecidos (mismo tipo, tamaño parecido, misma zona)',
    noComparables: 'No hay bastantes inmuebles parecidos para comparar.',
    monthly: 'al mes',
    sources: {
      web: 'Web de la agencia',
      idealista: 'idealista',
      fotocasa: 'Fotocasa',
      habitaclia: 'habitaclia',
      'pisos.com': 'pisos.com',
      kyero: 'Kyero',
      email: 'Correo electrónico',
      whatsapp: 'WhatsApp',
      manual: 'La agencia directamente',
    },
  },
  en: {
    locale: 'en-GB',
    subject: 'Your property’s report',
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    body: 'Here is the report of the last {days} days: views of your listing, interested people, viewings done and how your price compares with similar homes.',
    button: 'See the report',
    closing: 'Kind regards,\n{business}',
    title: 'Report for the owner',
    period: 'Period',
    daysOnMarket: 'Days on the market',
    views: 'Times the listing was seen',
    pageViews: 'The listing’s page',
    kitViews: 'The agency’s website',
    inPeriod: 'In this period',
    sinceListed: 'Since it was listed',
    leads: 'Interested people by source',
    noLeads: 'Nobody has asked yet.',
    viewings: 'Viewings done in this period',
    noViewings: 'There were no viewings in this period.',
    interest: 'Interest (1 to 5)',
    viewingsTotal: 'Viewings done since it was listed',
    matching: 'Buyers looking for something like it now',
    sent: 'How many we have sent it to',
    prices: 'Price history',
    priceFrom: 'From',
    priceM2: 'Your price per m²',
    comparables: 'Median of {count} similar homes (same type, similar size, same area)',
    noComparables: 'There are not enough similar homes to compare.',
    monthly: 'a month',
    sources: {
      web: 'The agency’s website',
      idealista: 'idealista',
      fotocasa: 'Fotocasa',
      habitaclia: 'habitaclia',
      'pisos.com': 'pisos.com',
      kyero: 'Kyero',
      email: 'E-mail',
      whatsapp: 'WhatsApp',
      manual: 'The agency directly',
    },
  },
  fr: {
    locale: 'fr-FR',
    subject: 'Le rapport de votre bien',
    greeting: 'Bonjour,',
    greetingNamed: 'Bonjour {name},',
    body: 'Voici le rapport des {days} derniers jours : vues de votre annonce, personnes intéressées, visites faites et votre prix face à des biens semblables.',
    button: 'Voir le rapport',
    closing: 'Cordialement,\n{business}',
    title: 'Rapport pour le propriétaire',
    period: 'Période',
    daysOnMarket: 'Jours sur le marché',
    views: 'Nombre de vues de l’annonce',
    pageViews: 'La page du bien',
    kitViews: 'Le site de l’agence',
    inPeriod: 'Sur cette période',
    sinceListed: 'Depuis la publication',
    leads: 'Personnes intéressées par origine',
    noLeads: 'Personne ne s’est encore manifesté.',
    viewings: 'Visites faites sur cette période',
    noViewings: 'Aucune visite sur cette période.',
    interest: 'Intérêt (1 à 5)',
    viewingsTotal: 'Visites faites depuis la publication',
    matching: 'Acheteurs qui cherchent un bien comme le vôtre',
    sent: 'À combien nous l’avons envoyé',
    prices: 'Historique du prix',
    priceFrom: 'Depuis le',
    priceM2: 'Votre prix au m²',
    comparables: 'Médiane de {count} biens semblables (même type, taille proche, même secteur)',
    noComparables: 'Il n’y a pas assez de biens semblables pour comparer.',
    monthly: 'par mois',
    sources: {
      web: 'Le site de l’agence',
      idealista: 'idealista',
      fotocasa: 'Fotocasa',
      habitaclia: 'habitaclia',
      'pisos.com': 'pisos.com',
      kyero: 'Kyero',
      email: 'E-mail',
      whatsapp: 'WhatsApp',
      manual: 'L’agence directement',
    },
  },
  de: {
    locale: 'de-DE',
    subject: 'Der Bericht zu Ihrer Immobilie',
    greeting: 'Guten Tag,',
    greetingNamed: 'Guten Tag {name},',
    body: 'Hier ist der Bericht der letzten {days} Tage: Aufrufe Ihres Inserats, Interessenten, durchgeführte Besichtigungen und Ihr Preis im Vergleich zu ähnlichen Immobilien.',
    button: 'Bericht ansehen',
    closing: 'Mit freundlichen Grüßen\n{business}',
    title: 'Bericht für den Eigentümer',
    period: 'Zeitraum',
    daysOnMarket: 'Tage auf dem Markt',
    views: 'Aufrufe des Inserats',
    pageViews: 'Seite der Immobilie',
    kitViews: 'Website der Agentur',
    inPeriod: 'In diesem Zeitraum',
    sinceListed: 'Seit der Veröffentlichung',
    leads: 'Interessenten nach Herkunft',
    noLeads: 'Noch keine Interessenten.',
    viewings: 'Besichtigungen in diesem Zeitraum',
    noViewings: 'In diesem Zeitraum gab es keine Besichtigungen.',
    interest: 'Interesse (1 bis 5)',
    viewingsTotal: 'Besichtigungen seit der Veröffentlichung',
    matching: 'Käufer, die gerade so etwas suchen',
    sent: 'Wie vielen wir sie geschickt haben',
    prices: 'Preisverlauf',
    priceFrom: 'Ab',
    priceM2: 'Ihr Preis pro m²',
    comparables: 'Median von {count} ähnlichen Immobilien (gleiche Art, ähnliche Größe, gleiche Gegend)',
    noComparables: 'Es gibt nicht genug ähnliche Immobilien für einen Vergleich.',
    monthly: 'im Monat',
    sources: {
      web: 'Website der Agentur',
      idealista: 'idealista',
      fotocasa: 'Fotocasa',
      habitaclia: 'habitaclia',
      'pisos.com': 'pisos.com',
      kyero: 'Kyero',
      email: 'E-Mail',
      whatsapp: 'WhatsApp',
      manual: 'Direkt über die Agentur',
    },
  },
  it: {
    locale: 'it-IT',
    subject: 'Il rapporto del suo immobile',
    greeting: 'Buongiorno,',
    greetingNamed: 'Buongiorno {name},',
    body: 'Le inviamo il rapporto degli ultimi {days} giorni: visualizzazioni dell’annuncio, interessati, visite fatte e il suo prezzo rispetto a immobili simili.',
    button: 'Vedere il rapporto',
    closing: 'Cordiali saluti,\n{business}',
    title: 'Rapporto per il proprietario',
    period: 'Periodo',
    daysOnMarket: 'Giorni sul mercato',
    views: 'Visualizzazioni dell’annuncio',
    pageViews: 'Pagina dell’immobile',
    kitViews: 'Sito dell’agenzia',
    inPeriod: 'In questo periodo',
    sinceListed: 'Dalla pubblicazione',
    leads: 'Interessati per provenienza',
    noLeads: 'Ancora nessun interessato.',
    viewings: 'Visite fatte in questo periodo',
    noViewings: 'Nessuna visita in questo periodo.',
    interest: 'Interesse (da 1 a 5)',
    viewingsTotal: 'Visite fatte dalla pubblicazione',
    matching: 'Acquirenti che cercano qualcosa di simile ora',
    sent: 'A quanti lo abbiamo inviato',
    prices: 'Storico del prezzo',
    priceFrom: 'Dal',
    priceM2: 'Il suo prezzo al m²',
    comparables: 'Mediana di {count} immobili simili (stesso tipo, dimensioni simili, stessa zona)',
    noComparables: 'Non ci sono abbastanza immobili simili per un confronto.',
    monthly: 'al mese',
    sources: {
      web: 'Sito dell’agenzia',
      idealista: 'idealista',
      fotocasa: 'Fotocasa',
      habitaclia: 'habitaclia',
      'pisos.com': 'pisos.com',
      kyero: 'Kyero',
      email: 'E-mail',
      whatsapp: 'WhatsApp',
      manual: 'Direttamente l’agenzia',
    },
  },
};

/** A language this module words, `es` otherwise. */
export const reportLanguage = (language: string) => (Object.hasOwn(WORDS, language) ? language : 'es');

/** The words of a report in `language`. */
export const reportWords = (language: string): ReportWording => WORDS[reportLanguage(language)];

/**
 * The e-mail linking a report's page.
 * @param words the business's and the owner's names, the period's days and the page's absolute link.
 * @returns `{subject, text, html}`, the HTML a complete document with every value escaped.
 */
export function ownerReportEmail(
  language: string,
  words: { businessName: string; ownerName: string | null; days: number; url: string },
): { subject: string; text: string; html: string } {
  const lang = reportLanguage(language);
  const w = WORDS[lang];
  const name = words.ownerName === null ? '' : oneLine(words.ownerName);
  const fill = (text: string) =>
    text.replaceAll('{business}', oneLine(words.businessName)).replaceAll('{name}', name).replaceAll('{days}', String(words.days));
  return linkEmail(lang, {
    subject: w.subject,
    greeting: fill(name ? w.greetingNamed : w.greeting),
    body: fill(w.body),
    button: w.button,
    url: words.url,
    closing: fill(w.closing),
  });
}

/** The `owner_report` template's body parameters: the owner's first name, the agency's name, the page's link. */
export function ownerReportTemplateParameters(words: { ownerName: string | null; businessName: string; url: string }): string[] {
  const first = words.ownerName?.trim().split(/\s+/)[0] ?? '';
  return [oneLine(first) || '-', oneLine(words.businessName), words.url];
}
