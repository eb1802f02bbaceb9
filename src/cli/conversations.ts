/**
 * `inmo conversations list|show|reply|resume|handoff` (CONTRACT §10, §25): agents see every
 * conversation, answer by WhatsApp inside the 24-hour window or by e-mail (`--channel`), and take
 * a conversation from the assistant or give it back.
 */
import { Option, type Command } from 'commander';
import type { showConversation } from '../services/messaging/conversations.ts';
import { action, command, positiveInt, print, withDb } from './common.ts';

type Thread = Awaited<ReturnType<typeof showConversation>>;

/** The thread for a person: one line a message, what it is and where it stands. */
function humanThread(c: Thread): string {
  const head = `lead #${c.lead_id}: ${c.state.replaceAll('_', ' ')}${c.window_open_until ? `, window open until ${c.window_open_until}` : ', no window open'}`;
  const lines = c.messages.map((m) => {
    const who = m.direction === 'in' ? 'lead' : (m.author ?? 'out');
    const what =
      m.kind === 'text'
        ? (m.text ?? '')
        : m.kind === 'template'
          ? `[template ${m.text ?? ''}]`
          : `[${m.kind}]${m.text ? ` ${m.text}` : ''}`;
    const state = m.direction === 'out' ? ` (${m.state}${m.error ? `: ${m.error}` : ''})` : '';
    return `  ${m.created_at} ${who}: ${what.replace(/\n/g, '\n      ')}${state}`;
  });
  return [head, ...(lines.length ? lines : ['  no messages'])].join('\n');
}

export function register(program: Command): void {
  const conversations = program.command('conversations').description('conversations with leads, by WhatsApp and e-mail');
  command(conversations, 'list', 'conversations, those waiting for an agent first, then the newest')
    .option('--business <id>', 'only this business', positiveInt)
    .option('--waiting', 'only those waiting for an agent')
    .action(
      action(async (opts: { business?: number; waiting?: boolean }) => {
        const { listConversations } = await import('../services/messaging/conversations.ts');
        const listed = await withDb((db) => listConversations(db, { businessId: opts.business, waiting: opts.waiting }), {
          mustExist: true,
        });
        const human = listed.data.length
          ? listed.data
              .map(
                (c) =>
                  `lead #${c.lead_id} ${c.name ?? '(no name)'} ${c.phone_number_1}: ${c.state.replaceAll('_', ' ')}, last message ${c.last_message_at}`,
              )
              .join('\n')
          : 'no conversations';
        print(listed, human);
      }),
    );
  command(conversations, 'show', "a lead's thread (WhatsApp and e-mail), oldest first, with each message's state")
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const { showConversation } = await import('../services/messaging/conversations.ts');
        const conversation = await withDb((db) => showConversation(db, id), { mustExist: true });
        print(conversation, humanThread(conversation));
      }),
    );
  command(
    conversations,
    'reply',
    "send the lead a message as an agent: by WhatsApp within 24 hours of the lead's last message, else by e-mail; the assistant then stays silent until resumed",
  )
    .argument('<lead_id>', 'lead id', positiveInt)
    .argument('<text>', 'the message')
    .addOption(
      new Option('--channel <channel>', "the way: whatsapp (inside the lead's 24-hour window) or email (to the lead's address)").choices([
        'whatsapp',
        'email',
      ]),
    )
    .action(
      action(async (id: number, text: string, opts: { channel?: 'whatsapp' | 'email' }) => {
        const { replyAsAgent } = await import('../services/messaging/conversations.ts');
        const { findMessage } = await import('../db/repositories/messaging.ts');
        const sent = await withDb(
          async (db) => {
            const messageId = await replyAsAgent(db, id, text, undefined, { channel: opts.channel });
            return { messageId, kind: (await findMessage(db, messageId))?.kind };
          },
          { mustExist: true },
        );
        const channel = sent.kind === 'email' ? 'email' : 'whatsapp';
        print(
          { lead_id: id, message_id: sent.messageId, channel, state: 'pending' },
          `queued message #${sent.messageId} to lead #${id} by ${channel === 'email' ? 'e-mail' : 'WhatsApp'}; the worker sends it`,
        );
      }),
    );
  command(conversations, 'resume', 'give the conversation back to the assistant')
    .argument('<lead_id>', 'lead id', positiveInt)
    .option('--opted-in', 'the lead, who had opted out, asked to be contacted again')
    .action(
      action(async (id: number, opts: { optedIn?: boolean }) => {
        const { setAnswerer } = await import('../services/messaging/conversations.ts');
        const conversation = await withDb((db) => setAnswerer(db, id, 'assistant', { optedIn: opts.optedIn }), { mustExist: true });
        print(conversation, `lead #${id}: the assistant answers again`);
      }),
    );
  command(conversations, 'handoff', 'take the conversation from the assistant: it waits for an agent')
    .argument('<lead_id>', 'lead id', positiveInt)
    .action(
      action(async (id: number) => {
        const { setAnswerer } = await import('../services/messaging/conversations.ts');
        const conversation = await withDb((db) => setAnswerer(db, id, 'waiting_for_agent'), { mustExist: true });
        print(conversation, `lead #${id}: waiting for an agent; the assistant is silent`);
      }),
    );
}
