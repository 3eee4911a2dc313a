// Parsing the text after /cdn: its words as Slack sent them (src/text.ts reads every escape), and
// "did you mean".
import { distance } from 'fastest-levenshtein';
import { parseSlackText, type SlackToken } from '../text.js';

export interface ParsedCommand {
  /** Lowercased first word; '' when the text is empty. */
  name: string;
  /** The words after it as typed: `acme.com` for `<http://acme.com|acme.com>`, `a>b` for `a&gt;b`. */
  args: string[];
  /** The same words as tokens, for readers of mentions (`<#C1|ops>`, `<!subteam^S1|@sre>`). */
  tokens: SlackToken[];
}

export function parseCommand(text: string): ParsedCommand {
  const [first, ...tokens] = parseSlackText(text);
  return {
    name: (first?.text ?? '').toLowerCase(),
    args: tokens.map((token) => token.text),
    tokens,
  };
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
