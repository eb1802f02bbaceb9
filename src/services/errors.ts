/** Errors the services throw for the CLI and the HTTP layer to report. */

/** A business id that does not exist. */
export class UnknownBusinessError extends Error {
  constructor(id: number) {
    super(`Business ${id} does not exist`);
  }
}

/** A lead whose primary phone is already taken in the business (spec §2.1). */
export class DuplicatePhoneError extends Error {
  constructor() {
    super('A lead with this phone number already exists');
  }
}
