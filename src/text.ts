// The one reader of Slack-formatted text people wrote (command text, message text): words, links
// and mentions as typed tokens, with Slack's entities decoded exactly once.

/**
 * The longest command or message text the bot reads; longer is refused before it is parsed. Slack
 * truncates a message's text past 40,000 characters ("Truncating really long messages",
 * https://api.slack.com/changelog/2018-04-truncating-really-long-messages: "The `text` field
 * accepts up to 40,000 characters", for chat.postMessage, response URLs and every other way to
 * post), and documents no separate limit for a slash command's text, typed in the same box.
 */
export const MAX_TEXT_LENGTH = 40_000;

/**
 * One whitespace-separated word of Slack text; `text` is what the person typed or saw.
 *
 * Slack formats it so (slackhq/slack-api-docs page_formatting.md, "How to escape characters",
 * "Linking to channels and users", "Linking to URLs", "Variables"): `&`, `<`, `>` arrive as
 * `&amp;`, `&lt;`, `&gt;`; a typed URL as `<http://foo.com/>`; a typed bare domain as
 * `<http://www.foo.com|www.foo.com>` (the URL, then what was typed); an email as
 * `<mailto:bob@example.com|bob@example.com>`; `<#C024BE7LR|general>`, `<@U024BE7LH|bob>`,
 * `<!subteam^ID|handle>`, `<!here>`. A slash command with `should_escape: true` gets the same
 * (docs.slack.dev, AgentsConversationsSetCommandsArguments.should_escape: "channel, user, and link
 * references in the command's text are escaped/parsed ... matching the slash-command should_escape
 * behavior"); recorded in slackapi/hubot-slack#213 (`test.hostname.com` arrives as
 * `<http://test.hostname.com|test.hostname.com>`) and hubot-archive/hubot-pager-me#39 (a slash
 * command's `user@vsco.co` arrives as `<mailto:user@vsco.co|user@vsco.co>`).
 */
export type SlackToken =
  | { kind: 'word'; text: string }
  | { kind: 'link'; text: string; url: string; label?: string }
  | { kind: 'user' | 'channel' | 'usergroup'; text: string; id: string; label?: string }
  | { kind: 'special'; text: string; name: string; label?: string };

/** Slack's three entities back to `&`, `<` and `>`, in one pass (`&amp;lt;` is `&lt;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (_, name: string) => ENTITIES[name] ?? '');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>' };

/** An escape (`<target|label>`), a run of white space, or plain text (a stray `<` included). */
const PIECE = /<([^\s<>|]+)(?:\|([^<>]*))?>|(\s+)|([^<\s]+|<)/g;

/**
 * Splits Slack text into words, never inside an escape (`<!subteam^S1|@sre team>` is one). A word
 * that is one escape is a link or a mention; a word with escapes inside plain text
 * (`tag:<http://a.io|a.io>`) is a plain word of what was typed (`tag:a.io`).
 */
export function parseSlackText(text: string): SlackToken[] {
  const words: SlackToken[][] = [];
  let current: SlackToken[] = [];
  for (const [, target, label, space, plain] of text.matchAll(PIECE)) {
    if (space !== undefined) {
      if (current.length > 0) words.push(current);
      current = [];
    } else if (target !== undefined) {
      current.push(escapeToken(decodeEntities(target), label && decodeEntities(label)));
    } else {
      current.push({ kind: 'word', text: decodeEntities(plain ?? '') });
    }
  }
  if (current.length > 0) words.push(current);
  return words.map((parts) =>
    parts.length === 1 && parts[0]
      ? parts[0]
      : { kind: 'word', text: parts.map((part) => part.text).join('') },
  );
}

/** The URL of every http(s) link in Slack text (inside a word too, labelled or not), once each. */
export function httpUrlsIn(text: string): string[] {
  const found = new Set<string>();
  for (const [, target, label, , plain] of text.matchAll(PIECE)) {
    if (target !== undefined) {
      const token = escapeToken(decodeEntities(target), label && decodeEntities(label));
      if (token.kind === 'link' && /^https?:\/\//i.test(token.url)) found.add(token.url);
    } else if (plain !== undefined) {
      // Text Slack did not link (a bot's message, say): its bare URLs.
      for (const [url] of decodeEntities(plain).matchAll(/https?:\/\/\S+/gi)) found.add(url);
    }
  }
  return [...found];
}

function escapeToken(target: string, label: string | undefined): SlackToken {
  const labelled = label === undefined || label === '' ? {} : { label };
  const sigil = target[0];
  if (sigil === '@' || sigil === '#') {
    const kind = sigil === '@' ? 'user' : 'channel';
    const id = target.slice(1);
    return { kind, id, text: mention(sigil, labelled.label ?? id), ...labelled };
  }
  if (target.startsWith('!subteam^')) {
    const id = target.slice('!subteam^'.length);
    return { kind: 'usergroup', id, text: mention('@', labelled.label ?? id), ...labelled };
  }
  if (sigil === '!') {
    const name = target.slice(1);
    return { kind: 'special', name, text: labelled.label ?? mention('@', name), ...labelled };
  }
  return { kind: 'link', url: target, text: typedLink(target, labelled.label), ...labelled };
}

function mention(sigil: string, name: string): string {
  return name.startsWith(sigil) ? name : `${sigil}${name}`;
}

/**
 * What was typed for a link: its label when Slack linked what the person typed (`acme.com` as
 * `<http://acme.com|acme.com>`, an IDN's label against its punycode URL, an email), else its URL.
 */
function typedLink(url: string, label: string | undefined): string {
  if (label === undefined) return url;
  if (url.replace(/^(?:https?:\/\/|mailto:)/i, '') === label) return label;
  const linked = URL.parse(url);
  const typed = URL.parse(`${linked?.protocol ?? 'http:'}//${label}`);
  return linked && typed && typed.href === linked.href ? label : url;
}
