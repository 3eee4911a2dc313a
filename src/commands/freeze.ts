// The words of `/cdn freeze add` and `/cdn freeze except`: what is frozen, when (one window or a
// weekly one), the time zone, the channel, the flag, the reason. Pure: time zones are checked later.
import type { SlackToken } from '../text.js';

/** The actions an exception is asked for, as typed. */
export const FREEZE_ACTION_WORDS = ['everything', 'ratelimit', 'create', 'purge'] as const;
export type FreezeActionWord = (typeof FREEZE_ACTION_WORDS)[number];

export function readAction(word: string | undefined): FreezeActionWord | undefined {
  const lower = word?.toLowerCase();
  return FREEZE_ACTION_WORDS.find((action) => action === lower);
}

export type FreezeTargetWords =
  | { kind: 'workspace' }
  | { kind: 'account'; name: string }
  | { kind: 'zone'; name: string };

/** Local times as typed: `YYYY-MM-DDTHH:mm`, or a weekday (1 Monday … 7 Sunday) and `HH:mm`. */
export type FreezeWhen =
  | { kind: 'once'; start: string; end: string }
  | {
      kind: 'weekly';
      start: { weekday: number; time: string };
      end: { weekday: number; time: string };
    };

export interface FreezeAddWords {
  target: FreezeTargetWords;
  when: FreezeWhen;
  timeZone?: string;
  channelId?: string;
  purges: boolean;
  reason: string;
}

export const FREEZE_ADD_USAGE =
  '`/cdn freeze add <zone>|account:<name>|workspace <YYYY-MM-DD HH:MM> → <YYYY-MM-DD HH:MM> [tz:<Area/City>] [#channel] [--purges] <reason>` or `… every fri 16:00 → mon 08:00 …`';

const DAYS: Record<string, number> = {
  mon: 1,
  monday: 1,
  tue: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
  sun: 7,
  sunday: 7,
};
const ARROWS = new Set(['→', '->', '=>', 'to', 'until', '-', '–']);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** A reading of the words, or why it is none (said to the person with the usage). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export function readTarget(word: string | undefined): FreezeTargetWords | undefined {
  if (word === undefined || word === '') return undefined;
  if (word.toLowerCase() === 'workspace') return { kind: 'workspace' };
  const account = /^account:(.+)$/i.exec(word);
  if (account?.[1]) return { kind: 'account', name: account[1] };
  return { kind: 'zone', name: word };
}

function time(word: string | undefined): string | undefined {
  const m = word === undefined ? null : TIME.exec(word);
  return m ? `${m[1]?.padStart(2, '0')}:${m[2]}` : undefined;
}

function date(word: string | undefined): string | undefined {
  const m = word === undefined ? null : DATE.exec(word);
  if (!m) return undefined;
  const month = Number(m[2]);
  const day = Number(m[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** `when` words from the start of `words`: the reading and how many words it took. */
export function readWhen(words: readonly string[]): Parsed<{ when: FreezeWhen; used: number }> {
  const w = words.map((x) => x.toLowerCase());
  if (w[0] === 'every') {
    const startDay = DAYS[w[1] ?? ''];
    const startTime = time(w[2]);
    const endDay = DAYS[w[4] ?? ''];
    const endTime = time(w[5]);
    if (!startDay || !startTime || !ARROWS.has(w[3] ?? '') || !endDay || !endTime)
      return { ok: false, error: 'A weekly freeze reads `every fri 16:00 → mon 08:00`.' };
    return {
      ok: true,
      value: {
        when: {
          kind: 'weekly',
          start: { weekday: startDay, time: startTime },
          end: { weekday: endDay, time: endTime },
        },
        used: 6,
      },
    };
  }
  const startDate = date(w[0]);
  const startTime = time(w[1]);
  const endDate = date(w[3]);
  const endTime = time(w[4]);
  if (!startDate || !startTime || !ARROWS.has(w[2] ?? '') || !endDate || !endTime)
    return {
      ok: false,
      error: 'A freeze window reads `2026-12-20 18:00 → 2027-01-04 08:00` (24-hour times).',
    };
  return {
    ok: true,
    value: {
      when: { kind: 'once', start: `${startDate}T${startTime}`, end: `${endDate}T${endTime}` },
      used: 5,
    },
  };
}

/**
 * `/cdn freeze add`'s words after `add` (`args`, with their `tokens` for the channel's id). The
 * options (`tz:`, `#channel`, `--purges`) may come anywhere after the window; the rest is the
 * reason.
 */
export function parseFreezeAdd(
  args: readonly string[],
  tokens: readonly SlackToken[],
): Parsed<FreezeAddWords> {
  const target = readTarget(args[0]);
  if (!target)
    return { ok: false, error: 'Say what to freeze: a zone, `account:<name>` or `workspace`.' };
  const when = readWhen(args.slice(1));
  if (!when.ok) return when;
  const rest = args.slice(1 + when.value.used);
  const restTokens = tokens.slice(tokens.length - rest.length);
  let timeZone: string | undefined;
  let channelId: string | undefined;
  let purges = false;
  const reason: string[] = [];
  for (const [i, word] of rest.entries()) {
    const token = restTokens[i];
    const tz = /^tz:(.+)$/i.exec(word);
    if (tz?.[1]) timeZone = tz[1];
    else if (token?.kind === 'channel') channelId = token.id;
    else if (word.toLowerCase() === '--purges') purges = true;
    else reason.push(word);
  }
  const text = reason.join(' ').trim();
  if (text === '') return { ok: false, error: 'Say why: the freeze’s channel will read it.' };
  return {
    ok: true,
    value: {
      target,
      when: when.value.when,
      ...(timeZone ? { timeZone } : {}),
      ...(channelId ? { channelId } : {}),
      purges,
      reason: text,
    },
  };
}
