/**
 * What an owner is told of a mandate to sign remotely (CONTRACT §24), pure: the e-mail carrying
 * its one-use link `/m/<token>`, and the words of the link's page. In the owner's language (es,
 * en, fr, de, it: services/messaging/welcome.ts `emailLanguage`), dates in words; no code or id
 * reaches the person.
 */
import { linkEmail, oneLine } from './welcome-email.ts';

/** What one language says. `{business}`, `{name}`, `{listing}`, `{days}` are filled in. */
interface Wording {
  subject: string;
  greeting: string;
  greetingNamed: string;
  body: string;
  button: string;
  closing: string;
  /** The link's page. */
  page: {
    title: string;
    intro: string;
    terms: string;
    pdf: string;
    sign: string;
    submit: string;
    done: string;
    used: string;
    expired: string;
    gone: string;
    refused: string;
    name: string;
    docType: string;
    docNumber: string;
    canvas: string;
    clear: string;
    none: string;
    drawn: string;
    noscript: string;
    faultName: string;
    faultDocument: string;
    faultLetter: string;
    faultSignature: string;
    docTypes: { dni: string; nie: string; other: string };
  };
}

const WORDS: Readonly<Record<string, Wording>> = {
  es: {
    subject: 'Su hoja de encargo para firmar',
    greeting: 'Hola:',
    greetingNamed: 'Hola, {name}:',
    body: 'Le enviamos la hoja de encargo de {listing} para que la revise y la firme desde su teléfono o su ordenador. El enlace vale {days} días y una sola vez.',
    button: 'Revisar y firmar la hoja de encargo',
    closing: 'Un saludo,\n{business}',
    page: {
      title: 'Hoja de encargo para firmar',
      intro: 'Revise las condiciones del encargo de {listing}. Si está de acuerdo, escriba sus datos y firme en el recuadro.',
      terms: 'Condiciones',
      pdf: 'Ver la hoja de encargo completa (PDF)',
      sign: 'Su firma',
      submit: 'Firmar la hoja de encargo',
      done: 'Hecho: la hoja de encargo queda firmada. La agencia ya la tiene. Gracias.',
      used: 'Este enlace ya se usó: la hoja de encargo está firmada.',
      expired: 'Este enlace ha caducado. Pida a la agencia que le envíe otro.',
      gone: 'Esta hoja de encargo ha cambiado desde que le escribimos. Pida a la agencia la nueva versión.',
      refused: 'Revise los campos marcados: la hoja no se ha firmado.',
      name: 'Nombre y apellidos',
      docType: 'Tipo de documento',
      docNumber: 'Número del documento',
      canvas: 'Recuadro de firma: firme con el dedo o el ratón',
      clear: 'Borrar la firma',
      none: 'Aún no hay firma en el recuadro.',
      drawn: 'Firma dibujada en el recuadro.',
      noscript: 'Para firmar hace falta JavaScript.',
      faultName: 'Escriba su nombre y apellidos.',
      faultDocument: 'Ese número no es un documento de ese tipo: revíselo.',
      faultLetter: 'La letra no corresponde al número: revise el documento.',
      faultSignature: 'Firme en el recuadro.',
      docTypes: { dni: 'DNI', nie: 'NIE', other: 'Pasaporte u otro documento' },
    },
  },
  en: {
    subject: 'Your mandate to sign',
    greeting: 'Hello,',
    greetingNamed: 'Hello {name},',
    body: 'Here is the mandate for {listing}, to review and sign from your phone or computer. The link is valid for {days} days and can be used once.',
    button: 'Review and sign the mandate',
    closing: 'Kind regards,\n{business}',
    page: {
      title: 'Mandate to sign',
      intro: 'Review the terms of the mandate for {listing}. If you agree, type your details and sign in the box.',
      terms: 'Terms',
      pdf: 'See the whole mandate (PDF)',
      sign: 'Your signature',
      submit: 'Sign the mandate',
      done: 'Done: the mandate is signed. The agency has it. Thank you.',
      used: 'This link was used already: the mandate is signed.',
      expired: 'This link has expired. Ask the agency to send you another.',
      gone: 'This mandate has changed since we wrote to you. Ask the agency for the new version.',
      refused: 'Check the fields marked: the mandate was not signed.',
      name: 'Full name',
      docType: 'Type of document',
      docNumber: 'Document number',
      canvas: 'Signature box: sign with your finger or the mouse',
      clear: 'Clear the signature',
      none: 'No signature in the box yet.',
      drawn: 'Signature drawn in the box.',
      noscript: 'Signing needs JavaScript.',
      faultName: 'Write your full name.',
      faultDocument: 'That number is not a document of that type: check it.',
      faultLetter: 'The letter does not match the number: check the document.',
      faultSignature: 'Sign in the box.',
      docTypes: { dni: 'DNI', nie: 'NIE', other: 'Passport or other document' },
    },
  },
  fr: {
    subject: 'Votre mandat à signer',
    greeting: 'Bonjour,',
    greetingNamed: 'Bonjour {name},',
    body: 'Voici le mandat pour {listing}, à relire et signer depuis votre téléphone ou votre ordinateur. Le lien est valable {days} jours et une seule fois.',
    button: 'Relire et signer le mandat',
    closing: 'Cordialement,\n{business}',
    page: {
      title: 'Mandat à signer',
      intro: 'Relisez les conditions du mandat pour {listing}. Si vous êtes d’accord, saisissez vos coordonnées et signez dans le cadre.',
      terms: 'Conditions',
      pdf: 'Voir le mandat complet (PDF)',
      sign: 'Votre signature',
      submit: 'Signer le mandat',
      done: 'C’est fait : le mandat est signé. L’agence l’a reçu. Merci.',
      used: 'Ce lien a déjà servi : le mandat est signé.',
      expired: 'Ce lien a expiré. Demandez-en un autre à l’agence.',
      gone: 'Ce mandat a changé depuis notre message. Demandez la nouvelle version à l’agence.',
      refused: 'Vérifiez les champs signalés : le mandat n’a pas été signé.',
      name: 'Nom et prénom',
      docType: 'Type de document',
      docNumber: 'Numéro du document',
      canvas: 'Cadre de signature : signez du doigt ou à la souris',
      clear: 'Effacer la signature',
      none: 'Pas encore de signature dans le cadre.',
      drawn: 'Signature tracée dans le cadre.',
      noscript: 'Il faut JavaScript pour signer.',
      faultName: 'Saisissez votre nom et prénom.',
      faultDocument: 'Ce numéro n’est pas un document de ce type : vérifiez-le.',
      faultLetter: 'La lettre ne correspond pas au numéro : vérifiez le document.',
      faultSignature: 'Signez dans le cadre.',
      docTypes: { dni: 'DNI', nie: 'NIE', other: 'Passeport ou autre document' },
    },
  },
  de: {
    subject: 'Ihr Maklerauftrag zur Unterschrift',
    greeting: 'Guten Tag,',
    greetingNamed: 'Guten Tag {name},',
    body: 'Anbei der Maklerauftrag für {listing} zum Prüfen und Unterschreiben am Telefon oder Computer. Der Link gilt {days} Tage und nur einmal.',
    button: 'Maklerauftrag prüfen und unterschreiben',
    closing: 'Mit freundlichen Grüßen\n{business}',
    page: {
      title: 'Maklerauftrag zur Unterschrift',
      intro:
        'Prüfen Sie die Bedingungen des Auftrags für {listing}. Wenn Sie einverstanden sind, geben Sie Ihre Daten ein und unterschreiben Sie im Feld.',
      terms: 'Bedingungen',
      pdf: 'Den ganzen Auftrag ansehen (PDF)',
      sign: 'Ihre Unterschrift',
      submit: 'Maklerauftrag unterschreiben',
      done: 'Erledigt: Der Maklerauftrag ist unterschrieben. Die Agentur hat ihn erhalten. Vielen Dank.',
      used: 'Dieser Link wurde schon benutzt: Der Auftrag ist unterschrieben.',
      expired: 'Dieser Link ist abgelaufen. Bitten Sie die Agentur um einen neuen.',
      gone: 'Dieser Auftrag hat sich seit unserer Nachricht geändert. Bitten Sie die Agentur um die neue Fassung.',
      refused: 'Prüfen Sie die markierten Felder: Der Auftrag wurde nicht unterschrieben.',
      name: 'Vor- und Nachname',
      docType: 'Art des Dokuments',
      docNumber: 'Dokumentnummer',
      canvas: 'Unterschriftsfeld: mit dem Finger oder der Maus unterschreiben',
      clear: 'Unterschrift löschen',
      none: 'Noch keine Unterschrift im Feld.',
      drawn: 'Unterschrift im Feld gezeichnet.',
      noscript: 'Zum Unterschreiben wird JavaScript benötigt.',
      faultName: 'Geben Sie Ihren Vor- und Nachnamen ein.',
      faultDocument: 'Diese Nummer ist kein Dokument dieser Art: bitte prüfen.',
      faultLetter: 'Der Buchstabe passt nicht zur Nummer: bitte das Dokument prüfen.',
      faultSignature: 'Unterschreiben Sie im Feld.',
      docTypes: { dni: 'DNI', nie: 'NIE', other: 'Reisepass oder anderes Dokument' },
    },
  },
  it: {
    subject: 'Il suo incarico da firmare',
    greeting: 'Buongiorno,',
    greetingNamed: 'Buongiorno {name},',
    body: 'Le inviamo l’incarico per {listing} da rivedere e firmare dal telefono o dal computer. Il link vale {days} giorni e una sola volta.',
    button: 'Rivedere e firmare l’incarico',
    closing: 'Cordiali saluti,\n{business}',
    page: {
      title: 'Incarico da firmare',
      intro: 'Riveda le condizioni dell’incarico per {listing}. Se è d’accordo, scriva i suoi dati e firmi nel riquadro.',
      terms: 'Condizioni',
      pdf: 'Vedere l’incarico completo (PDF)',
      sign: 'La sua firma',
      submit: 'Firmare l’incarico',
      done: 'Fatto: l’incarico è firmato. L’agenzia lo ha ricevuto. Grazie.',
      used: 'Questo link è già stato usato: l’incarico è firmato.',
      expired: 'Questo link è scaduto. Chieda all’agenzia di inviarne un altro.',
      gone: 'Questo incarico è cambiato dal nostro messaggio. Chieda all’agenzia la nuova versione.',
      refused: 'Controlli i campi segnalati: l’incarico non è stato firmato.',
      name: 'Nome e cognome',
      docType: 'Tipo di documento',
      docNumber: 'Numero del documento',
      canvas: 'Riquadro della firma: firmi con il dito o il mouse',
      clear: 'Cancellare la firma',
      none: 'Nessuna firma nel riquadro.',
      drawn: 'Firma tracciata nel riquadro.',
      noscript: 'Per firmare serve JavaScript.',
      faultName: 'Scriva nome e cognome.',
      faultDocument: 'Questo numero non è un documento di quel tipo: lo controlli.',
      faultLetter: 'La lettera non corrisponde al numero: controlli il documento.',
      faultSignature: 'Firmi nel riquadro.',
      docTypes: { dni: 'DNI', nie: 'NIE', other: 'Passaporto o altro documento' },
    },
  },
};

/** A language this module words, `es` otherwise. */
export const mandateLanguage = (language: string) => (Object.hasOwn(WORDS, language) ? language : 'es');

/**
 * The e-mail with the link to sign.
 * @param words the business's and the owner's names, the listing's title (or reference), the absolute link and how many days it holds.
 * @returns `{subject, text, html}`, the HTML a complete document with every value escaped.
 */
export function mandateLinkEmail(
  language: string,
  words: { businessName: string; ownerName: string | null; listing: string; url: string; days: number },
): { subject: string; text: string; html: string } {
  const lang = mandateLanguage(language);
  const w = WORDS[lang];
  const name = words.ownerName === null ? '' : oneLine(words.ownerName);
  const fill = (text: string) =>
    text
      .replaceAll('{business}', oneLine(words.businessName))
      .replaceAll('{name}', name)
      .replaceAll('{listing}', oneLine(words.listing))
      .replaceAll('{days}', String(words.days));
  return linkEmail(lang, {
    subject: w.subject,
    greeting: fill(name ? w.greetingNamed : w.greeting),
    body: fill(w.body),
    button: w.button,
    url: words.url,
    closing: fill(w.closing),
  });
}

/** The words of the link's page in `language`, `{listing}` filled in. */
export function mandatePageWords(language: string, listing: string): Wording['page'] {
  const page = WORDS[mandateLanguage(language)].page;
  return { ...page, intro: page.intro.replaceAll('{listing}', oneLine(listing)) };
}
