// Parsing the text after /cdn: words, Slack's escaped mentions kept whole, and "did you mean".
import { distance } from 'fastest-levenshtein';
import { decodeEntities } from '../text.js';

export interface ParsedCommand {
  /** Lowercased first word; '' when the text is empty. */
  name: string;
  args: string[];
}

/** Splits on white space, but never inside Slack's `<…>` escapes (`<!subteam^S1|@sre team>`). */
export function tokenize(text: string): string[] {
  return text.match(/<[^>]*>|\S+/g) ?? [];
}

export function parseCommand(text: string): ParsedCommand {
  // Escapes (`<…>`) stay as sent: their readers (URLs, mentions) decode what is inside.
  const [first = '', ...args] = tokenize(text.trim()).map((token) =>
    token.startsWith('<') ? token : decodeEntities(token),
  );
  return { name: first.toLowerCase(), args };
}

/** The name among `names` closest to a mistyped one, if any is close enough to be a typo. */
export function suggestSubcommand(word: string, names: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { name: string; score: number } | undefined;
  for (const name of names) {
    const score =
      name.startsWith(lower) && lower.length >= 2
        ? 0
        : swapped(name, lower)
          ? 1
          : distance(name, lower);
    // On a tie, the name as long as the word (a swap keeps the length: `uwnatch` is `unwatch`).
    const closer =
      best !== undefined &&
      score === best.score &&
      Math.abs(name.length - lower.length) < Math.abs(best.name.length - lower.length);
    if (!best || score < best.score || closer) best = { name, score };
  }
  // A swapped pair of letters costs 2 in Levenshtein distance, the commonest typo of all.
  return best && best.score <= Math.max(1, Math.ceil(lower.length / 3)) ? best.name : undefined;
}

/** Whether `b` is `a` with one pair of neighbouring letters swapped (`ues` for `use`). */
function swapped(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff = [...a].flatMap((char, i) => (char === b[i] ? [] : [i]));
  const [i, j] = diff;
  return diff.length === 2 && i !== undefined && j === i + 1 && a[i] === b[j] && a[j] === b[i];
}

/** A Slack user-group mention as escaped in command text: `<!subteam^S123|@sre>`. */
export function parseUsergroup(token: string): { id: string; handle?: string } | undefined {
  const match = /^<!subteam\^([A-Z0-9]+)(?:\|([^>]*))?>$/.exec(token);
  if (!match?.[1]) return undefined;
  return match[2] ? { id: match[1], handle: match[2] } : { id: match[1] };
}

/** A channel as Slack escapes it in command text (`<#C123|ops>` or `<#C123>`): its id. */
export function parseChannelMention(token: string): string | undefined {
  return /^<#([A-Z0-9]+)(?:\|[^>]*)?>$/.exec(token)?.[1];
}
