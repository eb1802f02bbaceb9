/**
 * The assistant that answers a lead on WhatsApp (spec §6.2, CONTRACT §10).
 *
 * What a message *does* is always decided by the built-in rules (domain/messaging/assistant.ts): an
 * opt-out, a hand-off to an agent, a change of the lead's searches. What the answer *says*
 * comes from an {@link Assistant}: the built-in one by default, or a business's
 * chat-completions model ({@link ChatCompletionsAssistant}, an OpenAI-compatible API) when
 * one is configured (`inmo channel assistant`). When the model fails, the built-in wording
 * answers instead, so a lead always gets an answer.
 */
import { compose, type ListingSummary, type ReplyContext } from '../../domain/messaging/assistant.ts';
import type { ChannelRow } from '../../db/repositories/messaging.ts';
import { openSecret } from '../../secrets.ts';
import { outboundFetch } from '../../channels/outbound.ts';
import type { OutboundPolicy } from '../../config.ts';

/** One message of the conversation as an assistant sees it. */
export interface ThreadLine {
  direction: 'in' | 'out';
  text: string;
}

/** Everything an assistant is given to write one answer. */
export interface AssistantInput extends ReplyContext {
  /** The lead's name, when known. */
  leadName: string | null;
  /** The lead's search preferences (spec §2.4), after any refinement of this message. */
  searches: ReadonlyArray<Record<string, unknown>>;
  /** The conversation so far, oldest first, this message last. */
  thread: readonly ThreadLine[];
}

/** Writes the answer to a lead's message. */
export interface Assistant {
  readonly name: string;
  /** @returns the text to send, or null for no answer. */
  reply(input: AssistantInput): Promise<string | null>;
}

/** The deterministic assistant: no outside service. */
export const builtInAssistant: Assistant = {
  name: 'built-in',
  reply: async (input) => compose(input),
};

/** Settings of a chat-completions assistant, as stored on the channel (`api_key` sealed). */
export interface ChatCompletionsSettings {
  /** Base URL of an OpenAI-compatible API, e.g. `https://api.openai.com/v1`. */
  url: string;
  model: string;
  /** Sealed (src/secrets.ts). */
  api_key: string | null;
}

/** Longest wait for the model, ms; then the built-in wording answers. */
export const CHAT_TIMEOUT_MS = 20_000;

function describeListing(listing: ListingSummary): string {
  const amount = listing.amount === null ? 'price on request' : `${listing.amount} ${listing.operation === 'alquiler' ? '€/month' : '€'}`;
  return [
    `#${listing.id}`,
    listing.title ?? '',
    listing.operation,
    amount,
    listing.city ?? '',
    listing.size === null ? '' : `${listing.size} m²`,
    listing.bedrooms === null ? '' : `${listing.bedrooms} bedrooms`,
    listing.url ?? '',
  ]
    .filter(Boolean)
    .join(' | ');
}

/**
 * An assistant backed by an OpenAI-compatible `POST {url}/chat/completions`. The model is
 * told the lead's searches, current matches (with their links) and the conversation, and
 * asked for a short answer in the lead's language that names only those listings.
 */
export class ChatCompletionsAssistant implements Assistant {
  readonly name = 'chat-completions';

  /**
   * @param settings the endpoint, the model and its key.
   * @param outbound where requests may go (config.ts `OutboundPolicy`).
   * @param timeoutMs how long an answer may take, ms.
   */
  constructor(
    private readonly settings: { url: string; model: string; apiKey: string | null },
    private readonly outbound: OutboundPolicy,
    private readonly timeoutMs = CHAT_TIMEOUT_MS,
  ) {}

  /** The chat messages sent for an input. */
  messages(input: AssistantInput): Array<{ role: 'system' | 'user' | 'assistant'; content: string }> {
    const language = input.language === 'en' ? 'English' : 'Spanish';
    const system = [
      'You are the WhatsApp assistant of a real-estate agency. Answer the lead briefly (at most 120 words), warmly,',
      `in ${language}, in plain text. Only mention the listings given below, with their links; never invent a listing,`,
      'a price or an availability. If the lead asks for something you cannot answer, say an agent will follow up.',
      `What the lead's last message was understood as: ${input.understanding.intent}.`,
      input.leadName ? `The lead's name: ${input.leadName}.` : '',
      `The lead's searches (JSON): ${JSON.stringify(input.searches)}`,
      input.matches.length ? `Current matches:\n${input.matches.map(describeListing).join('\n')}` : 'There are no current matches.',
    ]
      .filter(Boolean)
      .join('\n');
    return [
      { role: 'system', content: system },
      ...input.thread.map((line) => ({ role: line.direction === 'in' ? ('user' as const) : ('assistant' as const), content: line.text })),
    ];
  }

  /** @throws Error when the endpoint fails, times out or answers without text. */
  async reply(input: AssistantInput): Promise<string | null> {
    const response = await outboundFetch(
      `${this.settings.url.replace(/\/+$/, '')}/chat/completions`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {}),
        },
        body: JSON.stringify({ model: this.settings.model, messages: this.messages(input), temperature: 0.3, max_tokens: 400 }),
        signal: AbortSignal.timeout(this.timeoutMs),
      },
      this.outbound,
    );
    const text = await response.text();
    if (!response.ok) throw new Error(`the assistant endpoint answered HTTP ${response.status}`);
    let content: unknown;
    try {
      content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> }).choices?.[0]?.message?.content;
    } catch {
      throw new Error('the assistant endpoint did not answer JSON');
    }
    if (typeof content !== 'string' || content.trim() === '') throw new Error('the assistant endpoint answered no text');
    // WhatsApp's text limit.
    return content.trim().slice(0, 4096);
  }
}

/**
 * The assistant configured on a channel: the chat-completions one when set, else the built-in one.
 * @param outbound where the chat-completions one may send its requests.
 */
export function assistantOf(channel: Pick<ChannelRow, 'assistant'> | undefined, outbound: OutboundPolicy): Assistant {
  if (!channel?.assistant) return builtInAssistant;
  const settings = JSON.parse(channel.assistant) as ChatCompletionsSettings;
  return new ChatCompletionsAssistant(
    {
      url: settings.url,
      model: settings.model,
      apiKey: settings.api_key === null ? null : openSecret(settings.api_key),
    },
    outbound,
  );
}

/**
 * The answer of `assistant`, or the built-in one's when it fails: the words differ, never
 * whether the lead gets an answer.
 * @param onFailure told why the configured assistant could not answer.
 */
export async function replyWithFallback(
  assistant: Assistant,
  input: AssistantInput,
  onFailure: (error: Error) => void,
): Promise<string | null> {
  // Decisions are not the model's: an opt-out gets no answer, a hand-off or a visit the fixed words.
  if (
    assistant === builtInAssistant ||
    input.understanding.intent === 'opt_out' ||
    input.understanding.intent === 'agent' ||
    input.understanding.intent === 'visit' ||
    input.handsOff
  ) {
    return compose(input);
  }
  try {
    return await assistant.reply(input);
  } catch (error) {
    onFailure(error as Error);
    return compose(input);
  }
}
