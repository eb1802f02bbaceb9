/**
 * `process_email`: reads a portal's e-mail kept by `POST /webhooks/email/<token>` and makes the
 * lead (as an inquiry would, with its matching, welcome and follow-ups queued), adds the
 * request to a known lead, or keeps the message as not understood (CONTRACT §19,
 * services/leads/email-intake.ts). Everything it writes commits with the job's completion, and
 * a message already read is left alone, so running it again changes nothing.
 */
import { processInboundEmail } from '../../services/leads/email-intake.ts';
import { defineTask, type TaskContext } from '../task.ts';

async function run(ctx: TaskContext<'process_email'>): Promise<void> {
  const emailId = ctx.payload.email_id;
  const processed = await processInboundEmail(ctx.db, emailId, { finish: ctx.finish.bind(ctx) });
  // The state and ids only: what the message says is personal data.
  ctx.log({ email_id: emailId, state: processed.state, lead_id: processed.leadId }, 'process_email: read');
}

export const processEmailTask = defineTask<'process_email'>({ run });
