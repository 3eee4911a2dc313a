// What Slack parses as mrkdwn, and what must never reach it unescaped: shared by the builder walk
// (test/blocks/hostile.test.ts) and the end-to-end sweep (test/e2e/hostile-input.test.ts).

/**
 * What Slack would turn into a mention, a broadcast or a disguised link if it arrived unescaped.
 * (A user group typed as a mention is a real group id: `/cdn config` shows it back, ephemerally.)
 */
export const INJECTED = /<!(channel|here|everyone)|<@UEVIL|<https?:\/\/evil/;

/**
 * The strings Slack parses as mrkdwn: a string given as is (a file comment, a builder's text), a
 * message's `text`, and mrkdwn elements anywhere. plain_text, values, ids and private_metadata are
 * never parsed.
 */
export function mrkdwnOf(value: unknown, out: string[] = [], root = true): string[] {
  if (typeof value === 'string') {
    if (root) out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) mrkdwnOf(item, out, root);
  } else if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (typeof object.text === 'string' && (root || object.type === 'mrkdwn'))
      out.push(object.text);
    // A section's `text` is an object: walked like any other child.
    for (const child of Object.values(object))
      if (typeof child === 'object' && child !== null) mrkdwnOf(child, out, false);
  }
  return out;
}
