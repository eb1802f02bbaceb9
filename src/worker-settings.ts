import { PULL_WITHDRAW_MAX_SHARE } from './domain/catalogue/feed-formats.ts';

/** Tunables of a worker (src/jobs/worker.ts), and the defaults services fall back on; config.ts reads them from `INMO_WORKER_*`, `INMO_JOB_*`, `INMO_MATCH_LIMIT`, `INMO_SEND_TIMEOUT_MS`, `INMO_FEED_MAX_BYTES`, `INMO_EMAIL_PULL_TIMEOUT_MS`, `INMO_PULL_WITHDRAW_MAX_SHARE`, `INMO_LEAD_RETENTION_DAYS`, `INMO_ALERT_HOUR` and `INMO_VIEWING_REMINDER_HOURS`. */
export interface WorkerSettings {
  /** Jobs claimed and run at once. */
  concurrency: number;
  /** Idle wait between looks at the table, ms (new jobs of the same process wake it at once). */
  pollMs: number;
  /** How long a claimed job stays this worker's, ms. */
  leaseMs: number;
  /** Runs of a job before it is parked as failed. */
  maxAttempts: number;
  /** Wait before the first retry, ms; doubled on each further retry. */
  backoffMs: number;
  /** Longest wait between retries, ms. */
  maxBackoffMs: number;
  /** Most matches, and most near misses, stored per search entry. */
  matchLimit: number;
  /** How long a provider call may take before its outcome is unknown, ms. */
  sendTimeoutMs: number;
  /** The largest feed document a pull reads, bytes once decompressed (CONTRACT §15). */
  feedMaxBytes: number;
  /**
   * The deadline of one run of an IMAP pull, ms (services/leads/email-pulls.ts, issue 55): then its
   * connection is closed and the run ends. The task holds it to half of `leaseMs` at most, so a
   * running pull's job is never taken back by another worker.
   */
  emailPullTimeoutMs: number;
  /**
   * The share of a pulled source's listings (0 to 1) one pull may withdraw; a pull that would
   * withdraw more is held until an owner confirms it (services/catalogue/feeds/pulls.ts, issue 41).
   */
  pullWithdrawMaxShare: number;
  /**
   * Days after which a quiet lead (`new`, `closed` or `inactive`, no change and no message for
   * that long) is erased (CONTRACT §18 retention); null keeps every lead.
   */
  leadRetentionDays: number | null;
  /** The hour (0–23, business time) at which each day's alert digests are composed and sent (CONTRACT §21). */
  alertHour: number;
  /** Hours before a viewing its lead is reminded of it (CONTRACT §20); 0 sends no reminders. */
  viewingReminderHours: number;
  /** Days between an owner's reports unless the owner chose 7, 14 or 30 (CONTRACT §24, `INMO_OWNER_REPORT_DAYS`). */
  ownerReportDays: number;
}

export const DEFAULT_WORKER_SETTINGS: WorkerSettings = {
  concurrency: 4,
  pollMs: 1000,
  leaseMs: 5 * 60_000,
  maxAttempts: 10,
  backoffMs: 5_000,
  maxBackoffMs: 60 * 60_000,
  matchLimit: 200,
  sendTimeoutMs: 15_000,
  feedMaxBytes: 200 * 1024 * 1024,
  emailPullTimeoutMs: 2 * 60_000,
  pullWithdrawMaxShare: PULL_WITHDRAW_MAX_SHARE,
  leadRetentionDays: null,
  alertHour: 10,
  viewingReminderHours: 24,
  ownerReportDays: 7,
};
