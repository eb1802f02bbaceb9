/**
 * The worker's clock. Jobs come due, back off and follow-ups fall due by it, so tests move
 * time forward instead of waiting.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to (tests). */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date | string) {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  /** Moves the clock forward by `days` (fractional allowed). */
  advanceDays(days: number): void {
    this.ms += days * 86_400_000;
  }
  set(at: Date | string): void {
    this.ms = new Date(at).getTime();
  }
}
