// What Slack makes of text a person types before an app sees it: a slash command's text with
// `should_escape: true`, and a message's `text` (what a message shortcut carries). Slack's evidence
// (slackhq/slack-api-docs page_formatting.md) is cited beside each rule below.
import { domainToASCII } from 'node:url';
import type { SlackRecords } from './records.js';

type Workspace = Pick<SlackRecords, 'users' | 'channels' | 'usergroups'>;

// A `|` ends a link (it separates a link's URL from its label), so a word holding one stays text.
const URL_TYPED = /^https?:\/\/[^\s|]+$/i;
const EMAIL = /^[^\s@|]+@(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}$/iu;
/** A host name with an alphabetic top-level domain, and maybe a path: `acme.com/a.css`. */
const BARE_DOMAIN = /^(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}(?:\/[^\s|]*)?$/iu;
const BROADCASTS = new Set(['here', 'channel', 'everyone']);

/**
 * Typed text as Slack delivers it to an app: entities, links and mentions. A slash command with
 * `should_escape: true` gets the same as a message (docs.slack.dev,
 * AgentsConversationsSetCommandsArguments.should_escape: "channel, user, and link references in
 * the command's text are escaped/parsed ... matching the slash-command should_escape behavior").
 */
export function escapeTyped(text: string, workspace: Workspace): string {
  // Slack's three entities first, `&` before the others, and only those ("How to escape
  // characters"; "Escaping text", https://api.slack.com/reference/surfaces/formatting#escaping).
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .split(/(\s+)/)
    .map((word) => formatWord(word, workspace))
    .join('');
}

/**
 * One typed word as Slack links it.
 * - "Linking to URLs": URL detection is done by Slack's server; `http://foo.com/` arrives as
 *   `<http://foo.com/>`, a bare `www.foo.com` as `<http://www.foo.com|www.foo.com>` (the URL, a
 *   pipe, then what was typed), an email as `<mailto:bob@example.com|…>`. A bare domain without
 *   `www` is linked the same way: slackapi/hubot-slack#213 (`test.hostname.com` arrives as
 *   `<http://test.hostname.com|test.hostname.com>`), slackapi/hubot-slack#109 (`google.com`);
 *   a slash command's email, hubot-archive/hubot-pager-me#39 (`user@vsco.co` arrives as
 *   `<mailto:user@vsco.co|user@vsco.co>`). Slack links only known top-level domains; this links
 *   any alphabetic one (in doubt, as Slack would).
 * - "Linking to channels and users", "Variables": `<#C024BE7LR|general>`, `<@U024BE7LH|bob>`,
 *   `<!subteam^ID|handle>`, `<!here>`, `<!channel>`, `<!everyone>`. Slack's client sends a user
 *   group's handle with its `@` (gist tyage/e412fe9346265549b11e, Slack's own format.js:
 *   `<!here|@here>`); a name Slack does not know stays plain text.
 */
function formatWord(word: string, workspace: Workspace): string {
  if (URL_TYPED.test(word)) return `<${asciiHost(word)}>`;
  if (EMAIL.test(word)) return `<mailto:${word}|${word}>`;
  if (BARE_DOMAIN.test(word)) return `<${asciiHost(`http://${word}`)}|${word}>`;
  const name = word.slice(1).toLowerCase();
  if (word.startsWith('#')) {
    const channel = [...workspace.channels.values()].find((c) => c.name.toLowerCase() === name);
    return channel ? `<#${channel.id}|${channel.name}>` : word;
  }
  if (!word.startsWith('@')) return word;
  if (BROADCASTS.has(name)) return `<!${name}>`;
  const user = [...workspace.users.values()].find((u) => u.name.toLowerCase() === name);
  if (user) return `<@${user.id}|${user.name}>`;
  const group = [...workspace.usergroups].find(([, g]) => g.handle.toLowerCase() === name);
  return group ? `<!subteam^${group[0]}|@${group[1].handle}>` : word;
}

/**
 * A URL with its host in punycode, the rest as typed: pyconjp/pyconjpbot#49 (a typed
 * `https://プログラマが知るべき97のこと.com/…` reached the bot with its `xn--` host, and the bot's
 * `word--` handler fired on it). So a bare `bücher.example` arrives as
 * `<http://xn--bcher-kva.example|bücher.example>` (the label is what was typed, as for any bare
 * domain), and a typed `https://bücher.example/a.css` as `<https://xn--bcher-kva.example/a.css>`
 * (a typed URL gets no label; in doubt, the bot never sees the Unicode form).
 */
function asciiHost(url: string): string {
  const [, scheme, host, rest] = /^([a-z]+:\/\/)([^/?#]*)(.*)$/i.exec(url) ?? [];
  if (scheme === undefined || host === undefined || !/\P{ASCII}/u.test(host)) return url;
  return `${scheme}${domainToASCII(host) || host}${rest ?? ''}`;
}
