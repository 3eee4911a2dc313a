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

/** What a command says of the CDN account it is for, and its words without it. */
export interface AccountWords {
  /** The account typed, as typed: `account:staging`, or `staging` of `staging/example.com`. */
  account?: string;
  /** The words with `account:<name>` removed and `<account>/<zone>` read as `<zone>`. */
  args: string[];
  /** Two different accounts were typed: the command is refused rather than guessed. */
  conflict?: [string, string];
}

/** `account:<name>`: a word of its own, any case. */
const ACCOUNT_WORD = /^account:(.*)$/i;
/**
 * `<account>/<zone>` (or `<account>/` alone, for `/cdn use`): a slug, one slash, then no slash and
 * no colon, so neither a URL (`https://…`), nor a path (`/assets/…`), nor a tag (`tag:a/b`) is one.
 */
const ACCOUNT_ZONE = /^([a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?)\/([^/:]*)$/i;

/**
 * Reads the account out of a command's words: `account:<name>` anywhere, or a zone written
 * `<account>/<zone>`. One place for every command (docs: docs/commands.md, "Several CDN accounts").
 */
export function readAccount(args: readonly string[]): AccountWords {
  let account: string | undefined;
  let conflict: [string, string] | undefined;
  const note = (name: string) => {
    if (account !== undefined && account.toLowerCase() !== name.toLowerCase())
      conflict ??= [account, name];
    account ??= name;
  };
  const rest: string[] = [];
  for (const word of args) {
    const named = ACCOUNT_WORD.exec(word);
    if (named) {
      note(named[1] ?? '');
      continue;
    }
    const pair = ACCOUNT_ZONE.exec(word);
    if (pair?.[1] !== undefined) {
      note(pair[1]);
      if (pair[2]) rest.push(pair[2]);
      continue;
    }
    rest.push(word);
  }
  return {
    ...(account === undefined ? {} : { account }),
    args: rest,
    ...(conflict ? { conflict } : {}),
  };
}
