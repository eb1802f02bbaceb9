/**
 * Follow-up rules and failed jobs (owners): `GET /jobs` (periods by lead type, failed jobs with
 * their last error), `POST /jobs/:job_id/retry`, `POST /follow-ups` (fields `type`, `every_days`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { listFailedJobs, retryJob } from '../../../services/failed-jobs.ts';
import { listFollowUpRules, setFollowUpRule } from '../../../services/leads/follow-ups.ts';
import { InmoError } from '../../../errors.ts';
import { render } from '../page.ts';
import type { MessageKey } from '../i18n.ts';
import { csrfCheckedRoute, idParam, readForm, type ConsoleDeps } from '../forms.ts';
import { FollowUpRuleForm } from '../../../schemas/console-forms.ts';

export async function jobPages(app: FastifyInstance, { db, onJobsQueued }: ConsoleDeps): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const jobsPage = async (request: FastifyRequest, reply: FastifyReply, status = 200, problem: MessageKey | null = null) => {
    const businessId = request.consoleSession!.businessId;
    const [jobs, rules] = await Promise.all([listFailedJobs(db, businessId), listFollowUpRules(db, businessId)]);
    return render(reply, 'jobs', { jobs, rules, problem }, status);
  };

  app.get('/jobs', { config: { consoleAccess: 'owner' } }, async (request, reply) => jobsPage(request, reply));

  app.post<{ Params: { job_id: string } }>(
    '/jobs/:job_id/retry',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const id = idParam(request.params.job_id);
      if (id === null) throw new InmoError('NOT_FOUND');
      try {
        await retryJob(db, id, { businessId: request.consoleSession!.businessId });
      } catch (error) {
        if (error instanceof InmoError && error.code === 'JOB_NOT_FOUND') throw new InmoError('NOT_FOUND');
        if (!(error instanceof InmoError) || (error.code !== 'JOB_NOT_FAILED' && error.code !== 'JOB_RETRY_UNSAFE')) throw error;
        request.errorCode = error.code;
        return jobsPage(request, reply, 409, error.code);
      }
      onJobsQueued();
      return reply.code(303).header('location', '/console/jobs').send();
    },
  );

  app.post('/follow-ups', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, FollowUpRuleForm);
    if (faults.length > 0) {
      const problem = faults[0].field === 'every_days' ? 'FOLLOW_UP_PERIOD' : 'FOLLOW_UP_TYPE_UNKNOWN';
      request.errorCode = problem;
      return jobsPage(request, reply, 422, problem);
    }
    try {
      await setFollowUpRule(db, request.consoleSession!.businessId, value.type, value.every_days);
    } catch (error) {
      if (!(error instanceof InmoError) || (error.code !== 'FOLLOW_UP_TYPE_UNKNOWN' && error.code !== 'FOLLOW_UP_PERIOD')) throw error;
      request.errorCode = error.code;
      return jobsPage(request, reply, 422, error.code);
    }
    return reply.code(303).header('location', '/console/jobs').send();
  });
}
