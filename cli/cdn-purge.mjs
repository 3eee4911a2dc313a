#!/usr/bin/env node
// cdn-purge: asks the cdn-chatops bot for a purge over its HTTP API (docs/api.md) and waits for
// the result, or for the approval in Slack; a purge for later (--at, --in) is left to run then. One file, Node >= 20 and its built-ins only, so that
// any CI can run it as it is; docs/ci.md shows how, and what each exit code means.
// @ts-check
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';

/** Exit codes, one per outcome (docs/ci.md lists them). */
const EXIT = {
  succeeded: 0,
  /** Asked for later (--at, --in), and accepted: it runs then, without this job. */
  scheduled: 0,
  failed: 1,
  usage: 2,
  refused: 3,
  rejected: 4,
  expired: 5,
  unknown: 6,
  timeout: 7,
  unreachable: 8,
};

const USAGE = `Usage: cdn-purge [options] [URL…]

Asks the cdn-chatops bot to purge, then waits for the result (or the approval in Slack).

  --zone NAME             the zone (default: the URLs' host, when they all have the same)
  --urls "URL …"          URLs to purge (also the arguments)
  --tags "TAG …"          cache tags to purge
  --everything            the whole zone (waits for a second person in Slack)
  --account NAME          the zone's CDN account, when the token reaches several
  --reason TEXT           why (shown in Slack and kept in the audit log)
  --at TIME               purge then, not now: RFC 3339 with its offset (2026-12-03T02:00:00Z),
                          at most 7 days ahead; the command ends once the bot has it scheduled
  --in DURATION           purge that long from now: 30m, 1h30m, 2d (at most 7d)
  --wait                  with --at or --in, wait for the purge to run and its result, within
                          --timeout (a purge of everything always waits for its approval)
  --timeout DURATION      how long to wait in all: 90, 90s, 10m, 1h (default 10m)
  --idempotency-key KEY   the same key again returns the same purge (default: one per run)
  --help                  this text

Environment: CDN_CHATOPS_URL (the bot's origin) and CDN_CHATOPS_TOKEN (an API token, read from
the environment only), and CDN_CHATOPS_ZONE, _URLS, _TAGS, _EVERYTHING (true/false), _ACCOUNT,
_REASON, _TIMEOUT, _IDEMPOTENCY_KEY, _WAIT (true/false) for the options above, and
CDN_CHATOPS_NOT_BEFORE for --at or --in (either form: 2026-12-03T02:00:00Z, in 30m).

Exit codes: 0 succeeded (or scheduled), 1 failed, 2 usage, 3 refused by the API, 4 denied in Slack,
5 expired (nobody approved in time), 6 not confirmed by the CDN (it may have purged),
7 timed out, 8 the bot could not be reached or read.`;

const FINAL = new Set(['succeeded', 'failed', 'rejected', 'expired', 'unknown']);
/** How far ahead the bot schedules a purge (docs/api.md, `not_before`). */
const MAX_AHEAD_DAYS = 7;
/** A duration as the bot reads `in <duration>`: days, hours, minutes, in this order. */
const AHEAD = /^(?:(\d{1,3})d)?(?:(\d{1,4})h)?(?:(\d{1,5})m(?:in)?)?$/i;
/** RFC 3339 with its offset, as the bot takes it (seconds required, `T` and `Z` upper case). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const ATTEMPTS = 6;
/** The pause after a 5xx or a lost connection, and after a 429 without Retry-After. */
const PAUSE_S = 5;
const REQUEST_TIMEOUT_S = 30;
/** 503s that say how the bot is set up (no CDN key yet, calls forbidden): asking again won't help. */
const LASTING = new Set(['no-cdn-key', 'not-ready']);

class Usage extends Error {}

/**
 * @typedef {{ base: string, token: string, body: Record<string, unknown>, what: string,
 *   zoneGuessed: boolean, timeoutMs: number, key: string, wait: boolean }} Options
 * @typedef {{ id?: string, status?: string, not_before?: string, zone?: string, account?: string,
 *   kind?: string, progress?: { done: number, total: number }, approved_by?: string,
 *   error?: string }} State
 * @typedef {{ code: number, json: Record<string, any> | undefined }} Answer
 * @typedef {{ result: keyof typeof EXIT, message?: string, state?: State, problem?: Answer }} Outcome
 */

const env = process.env;
const actions = env.GITHUB_ACTIONS === 'true';

/** Text as a workflow command's data (actions/toolkit's escaping). */
const commandData = (/** @type {string} */ s) =>
  s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** Text as a workflow command's property. */
const commandProperty = (/** @type {string} */ s) =>
  commandData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

function say(/** @type {string} */ line) {
  process.stdout.write(`${line}\n`);
}

/** An annotation under GitHub Actions, a line on stderr elsewhere. */
function annotate(
  /** @type {'error' | 'warning'} */ level,
  /** @type {string} */ title,
  /** @type {string} */ text,
) {
  if (actions) say(`::${level} title=${commandProperty(title)}::${commandData(text)}`);
  else process.stderr.write(`${title}: ${text}\n`);
}

/** Whitespace-separated words of a flag or variable. */
const words = (/** @type {string | undefined} */ s) => (s ?? '').split(/\s+/).filter(Boolean);

function parseTimeout(/** @type {string} */ raw) {
  const match = /^(\d+)(s|m|h)?$/.exec(raw.trim());
  if (!match || Number(match[1]) === 0)
    throw new Usage(`the timeout is a duration such as 90, 90s, 10m or 1h, not "${raw}"`);
  const unit = match[2] === 'h' ? 3_600_000 : match[2] === 'm' ? 60_000 : 1_000;
  return Number(match[1]) * unit;
}

/** `30m`, `1h30m`, `2d` (an `in ` before it allowed) as milliseconds; undefined when not one. */
function aheadMs(/** @type {string} */ raw) {
  const match = AHEAD.exec(raw.replace(/^\s*in\s+/i, '').replace(/\s+/g, ''));
  if (!match || match.slice(1).every((part) => part === undefined)) return undefined;
  const [, days, hours, minutes] = match;
  return (
    Number(days ?? 0) * 86_400_000 + Number(hours ?? 0) * 3_600_000 + Number(minutes ?? 0) * 60_000
  );
}

/**
 * `not_before` from --at or --in (or CDN_CHATOPS_NOT_BEFORE, either form), checked for its form
 * and, for a duration, its bound; whether a time has passed is the bot's to say (its clock).
 * @returns {{ notBefore: string, aheadMs?: number } | undefined}
 */
function schedule(
  /** @type {string | undefined} */ at,
  /** @type {string | undefined} */ inFlag,
  /** @type {string} */ fromEnv,
) {
  if (at !== undefined && inFlag !== undefined) throw new Usage('give --at or --in, not both');
  const given = inFlag ?? at ?? fromEnv;
  // What the message names: the flag, or the variable the action's `not-before` input sets.
  const name =
    inFlag !== undefined
      ? '--in'
      : at !== undefined
        ? '--at'
        : 'CDN_CHATOPS_NOT_BEFORE (not-before)';
  if (inFlag !== undefined || (at === undefined && /^\s*in\s/i.test(fromEnv))) {
    const ms = aheadMs(given);
    if (ms === undefined || ms === 0)
      throw new Usage(`${name} is a duration such as 30m, 1h30m or 2d, not "${given.trim()}"`);
    if (ms > MAX_AHEAD_DAYS * 86_400_000)
      throw new Usage(`${name} is at most ${MAX_AHEAD_DAYS} days ahead, not "${given.trim()}"`);
    return { notBefore: `in ${given.replace(/^\s*in\s+/i, '').replace(/\s+/g, '')}`, aheadMs: ms };
  }
  const instant = given.trim();
  if (!instant) return undefined;
  if (!INSTANT.test(instant) || Number.isNaN(Date.parse(instant)))
    throw new Usage(
      `${name} is an RFC 3339 time with its offset, such as 2026-12-03T02:00:00Z or 2026-12-03T03:00:00+01:00${at === undefined ? ', or in 30m' : ''}, not "${instant}"${at === undefined ? '' : ' (or --in 30m)'}`,
    );
  return { notBefore: instant };
}

/** The options, from the flags and else the environment. */
function options(/** @type {string[]} */ argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      zone: { type: 'string' },
      urls: { type: 'string', multiple: true },
      tags: { type: 'string', multiple: true },
      everything: { type: 'boolean' },
      account: { type: 'string' },
      reason: { type: 'string' },
      timeout: { type: 'string' },
      at: { type: 'string' },
      in: { type: 'string' },
      wait: { type: 'boolean' },
      'idempotency-key': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return undefined;
  const token = (env.CDN_CHATOPS_TOKEN ?? '').trim();
  // Masked first: nothing after this line can show it in the log.
  if (actions && token) say(`::add-mask::${token}`);
  const pick = (/** @type {string | undefined} */ flag, /** @type {string} */ name) =>
    (flag ?? env[`CDN_CHATOPS_${name}`] ?? '').trim();

  const base = pick(undefined, 'URL').replace(/\/+$/, '');
  if (!token) throw new Usage('CDN_CHATOPS_TOKEN is not set: an API token of the bot (cdnb_…)');
  if (!/^https?:\/\/[^/]+$/.test(base))
    throw new Usage(
      base
        ? `CDN_CHATOPS_URL is the bot's origin (https://cdn-bot.example.com), not "${base}"`
        : "CDN_CHATOPS_URL is not set: the bot's origin, such as https://cdn-bot.example.com",
    );

  const urls = [...(values.urls ?? []).flatMap(words), ...positionals];
  if (urls.length === 0) urls.push(...words(env.CDN_CHATOPS_URLS));
  const tags = (values.tags ?? []).flatMap(words);
  if (tags.length === 0) tags.push(...words(env.CDN_CHATOPS_TAGS));
  const everythingEnv = pick(undefined, 'EVERYTHING').toLowerCase();
  if (!['', 'true', 'false'].includes(everythingEnv))
    throw new Usage(`CDN_CHATOPS_EVERYTHING is true or false, not "${everythingEnv}"`);
  const everything = values.everything ?? everythingEnv === 'true';
  const kinds = [urls.length > 0, tags.length > 0, everything].filter(Boolean).length;
  if (kinds !== 1)
    throw new Usage(
      kinds === 0
        ? 'nothing to purge: give URLs, tags or everything'
        : 'give one of URLs, tags or everything, not several',
    );

  let zone = pick(values.zone, 'ZONE');
  let zoneGuessed = false;
  if (!zone) {
    const hosts = new Set(
      urls.map((u) => {
        try {
          return new URL(u).hostname;
        } catch {
          throw new Usage(`"${u}" is not a URL`);
        }
      }),
    );
    if (hosts.size !== 1)
      throw new Usage('name the zone (--zone, CDN_CHATOPS_ZONE or the zone input)');
    zone = [...hosts][0] ?? '';
    zoneGuessed = true;
  }

  /** @type {Record<string, unknown>} */
  const body = { zone };
  if (urls.length > 0) body.urls = urls;
  else if (tags.length > 0) body.tags = tags;
  else body.everything = true;
  const account = pick(values.account, 'ACCOUNT');
  if (account) body.account = account;
  const context = actions ? githubContext() : undefined;
  const reason =
    pick(values.reason, 'REASON') ||
    (context?.repository && context.commit
      ? `${env.GITHUB_WORKFLOW || 'workflow'} of ${context.repository} at ${context.commit.slice(0, 7)}`
      : '');
  if (reason) body.reason = reason.slice(0, 500);
  if (context) body.context = context;
  const when = schedule(values.at, values.in, pick(undefined, 'NOT_BEFORE'));
  if (when) body.not_before = when.notBefore;
  const waitEnv = pick(undefined, 'WAIT').toLowerCase();
  if (!['', 'true', 'false'].includes(waitEnv))
    throw new Usage(`CDN_CHATOPS_WAIT is true or false, not "${waitEnv}"`);
  const wait = values.wait ?? waitEnv === 'true';

  const what =
    urls.length > 0
      ? `${urls.length} URL${urls.length === 1 ? '' : 's'}`
      : tags.length > 0
        ? `${tags.length} tag${tags.length === 1 ? '' : 's'}`
        : 'everything';
  const timeoutMs = parseTimeout(pick(values.timeout, 'TIMEOUT') || '10m');
  if (wait && when?.aheadMs !== undefined && when.aheadMs >= timeoutMs)
    throw new Usage(
      `--wait would stop at --timeout (${duration(timeoutMs)}), before the purge runs (${when.notBefore}): give a longer --timeout, or leave --wait out`,
    );
  const key = pick(values['idempotency-key'], 'IDEMPOTENCY_KEY') || defaultKey(body);
  if (!/^[\x21-\x7e]{1,255}$/.test(key))
    throw new Usage('the idempotency key is 1 to 255 visible ASCII characters');
  return { base, token, body, what, zoneGuessed, timeoutMs, key, wait };
}

/** Where the purge comes from, under GitHub Actions: shown in Slack, kept in the audit log. */
function githubContext() {
  const repository = env.GITHUB_REPOSITORY ?? '';
  /** @type {Record<string, string>} */
  const context = {
    repository: repository.slice(0, 200),
    commit: (env.GITHUB_SHA ?? '').slice(0, 100),
    run_url: `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${repository}/actions/runs/${env.GITHUB_RUN_ID ?? ''}`,
    actor: (env.GITHUB_ACTOR ?? '').slice(0, 200),
  };
  for (const [name, value] of Object.entries(context)) if (!value) delete context[name];
  return context;
}

/**
 * The Idempotency-Key when none is given. Under GitHub Actions: the run, its attempt and the
 * request, so that this tool's own retries never purge twice, two purges of one job stay two, and a
 * re-run (its purge may have failed or timed out) asks again. Elsewhere: one per invocation.
 */
function defaultKey(/** @type {Record<string, unknown>} */ body) {
  if (!actions || !env.GITHUB_RUN_ID) return `cdn-purge-${randomUUID()}`;
  // The whole body: a key used again with another body would be refused (409).
  const digest = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16);
  const repository = (env.GITHUB_REPOSITORY ?? '').replace(/[^\x21-\x7e]/g, '').slice(0, 150);
  return `github-${repository}-${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT ?? '1'}-${digest}`;
}

/** Seconds from a Retry-After header (seconds or an HTTP date), if it says. */
function retryAfter(/** @type {string | null} */ header) {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * One request, tried again after a 429 (its Retry-After), a 5xx (its Retry-After, else 5 s;
 * not one that says how the bot is set up) or a lost connection (5 s), at most 6 times and never
 * past the deadline. Resolves with the last answer, `undefined` when the
 * bot never answered, or 'timeout'.
 * @param {Options} o
 * @param {string} url
 * @param {RequestInit} init
 * @param {number} deadline
 * @param {number} timeoutS
 * @returns {Promise<Answer | undefined | 'timeout'>}
 */
async function call(o, url, init, deadline, timeoutS) {
  /** @type {Answer | undefined} */
  let last;
  for (let attempt = 1; ; attempt++) {
    /** @type {number} */
    let pause;
    try {
      const response = await fetch(url, {
        ...init,
        headers: {
          ...init.headers,
          authorization: `Bearer ${o.token}`,
          accept: 'application/json',
        },
        // Never much past the deadline, whatever the request.
        signal: AbortSignal.timeout(
          Math.max(1_000, Math.min(timeoutS * 1000, deadline - Date.now() + 5_000)),
        ),
      });
      const text = await response.text();
      let json;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      last = { code: response.status, json };
      const lasting = LASTING.has(problemName(last));
      if ((response.status !== 429 && response.status < 500) || lasting) return last;
      pause = retryAfter(response.headers.get('retry-after')) ?? PAUSE_S;
      if (attempt >= ATTEMPTS) return last;
      const name = problemName(last);
      say(
        `The bot answered ${response.status}${name ? ` (${name})` : ''}; trying again in ${pause} s.`,
      );
    } catch (error) {
      pause = PAUSE_S;
      if (attempt >= ATTEMPTS) return last;
      const why =
        error instanceof Error && error.name === 'TimeoutError'
          ? 'did not answer in time'
          : 'could not be reached';
      say(`The bot ${why}; trying again in ${pause} s.`);
    }
    if (Date.now() + pause * 1000 >= deadline) return 'timeout';
    await delay(pause * 1000);
  }
}

/** The problem's name (`forbidden-zone`) from its type URI. */
function problemName(/** @type {Answer | undefined} */ answer) {
  const type = answer?.json?.type;
  return typeof type === 'string' ? type.slice(type.lastIndexOf('/') + 1) : '';
}

function problemText(/** @type {Answer} */ answer) {
  const json = answer.json ?? {};
  const parts = [json.detail ?? json.title ?? 'no detail'];
  if (Array.isArray(json.items))
    parts.push(
      json.items
        .slice(0, 5)
        .map((/** @type {{ item: string, reason: string }} */ i) => `${i.item}: ${i.reason}`)
        .join('; '),
    );
  if (Array.isArray(json.accounts)) parts.push(`accounts: ${json.accounts.join(', ')}`);
  if (Array.isArray(json.errors))
    parts.push(
      json.errors
        .slice(0, 5)
        .map((/** @type {{ path: string, message: string }} */ e) => `${e.path}: ${e.message}`)
        .join('; '),
    );
  return parts.join(' — ');
}

/** ` for <time>` while a purge waits for its time. */
const forTime = (/** @type {State} */ s) =>
  s.not_before && ['scheduled', 'waiting_for_approval'].includes(String(s.status))
    ? ` for ${s.not_before}`
    : '';

const progressOf = (/** @type {State} */ s) =>
  s.progress && s.progress.total > 0 && s.status !== 'scheduled'
    ? ` (${s.progress.done}/${s.progress.total} done)`
    : '';

/** @param {Options} o @returns {Promise<Outcome>} */
async function purge(o) {
  const deadline = Date.now() + o.timeoutMs;
  const zone = String(o.body.zone);
  const posted = await call(
    o,
    `${o.base}/api/v1/purges`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': o.key },
      body: JSON.stringify(o.body),
    },
    deadline,
    REQUEST_TIMEOUT_S,
  );
  if (posted === 'timeout')
    return {
      result: 'timeout',
      message: `the bot took no request within ${duration(o.timeoutMs)}`,
    };
  if (!posted || posted.code === 429 || posted.code >= 500)
    return unreachable(posted, 'could not ask for the purge');
  if (posted.code !== 202) {
    const hint =
      o.zoneGuessed && ['zone-not-found', 'forbidden-zone'].includes(problemName(posted))
        ? ` (the zone was taken from the URLs' host: name it if it is another)`
        : '';
    return {
      result: 'refused',
      problem: posted,
      message: `${zone} was not purged (HTTP ${posted.code}${problemName(posted) ? ` ${problemName(posted)}` : ''}): ${problemText(posted)}${hint}`,
    };
  }
  /** @type {State} */
  let state = posted.json ?? {};
  const path = String(posted.json?.url ?? `/api/v1/purges/${encodeURIComponent(String(state.id))}`);
  say(`Purge ${state.id} of ${zone} (${o.what}): ${state.status}${forTime(state)}`);
  // A line for each new status, and for progress within one.
  let shown = { status: state.status, done: state.progress?.done };
  // A purge for later is left to run then, unless told to wait for it.
  const enough = (/** @type {State} */ s) =>
    FINAL.has(String(s.status)) || (s.status === 'scheduled' && !o.wait);
  while (!enough(state)) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const wait = Math.min(60, Math.ceil(left / 1000));
    const read = await call(
      o,
      `${o.base}${path}?wait=${wait}`,
      {},
      deadline,
      wait + REQUEST_TIMEOUT_S,
    );
    if (read === 'timeout') break;
    if (read?.code !== 200)
      return { ...unreachable(read, `could not read purge ${state.id}`), state };
    state = read.json ?? {};
    const done = state.progress?.done;
    if (state.status !== shown.status || (shown.done !== undefined && done !== shown.done))
      say(`… ${state.status}${forTime(state)}${progressOf(state)}`);
    shown = { status: state.status, done };
  }
  const status = String(state.status);
  if (!enough(state))
    return {
      result: 'timeout',
      state,
      message: `purge ${state.id} of ${zone} is still ${status.replace(/_/g, ' ')}${forTime(state)} after ${duration(o.timeoutMs)}; it goes on without this job (see Slack)`,
    };
  return { result: /** @type {keyof typeof EXIT} */ (status), state };
}

/** @returns {Outcome} */
function unreachable(/** @type {Answer | undefined} */ answer, /** @type {string} */ what) {
  return {
    result: 'unreachable',
    ...(answer ? { problem: answer } : {}),
    message: answer
      ? `${what} (HTTP ${answer.code}${problemName(answer) ? ` ${problemName(answer)}` : ''}): ${problemText(answer)}`
      : `${what}: the bot did not answer`,
  };
}

const duration = (/** @type {number} */ ms) =>
  ms % 3_600_000 === 0
    ? `${ms / 3_600_000} h`
    : ms % 60_000 === 0
      ? `${ms / 60_000} min`
      : `${ms / 1000} s`;

/** What the job log, the annotation and the summary say of an outcome. */
function report(/** @type {Options} */ o, /** @type {Outcome} */ outcome) {
  const zone = String(o.body.zone);
  const s = outcome.state;
  const error = s?.error ? `: ${s.error}` : '';
  switch (outcome.result) {
    case 'succeeded':
      say(`Purged ${o.what} of ${zone}${s?.approved_by ? ` (approved by ${s.approved_by})` : ''}.`);
      break;
    case 'scheduled':
      say(
        `Scheduled ${o.what} of ${zone} for ${s?.not_before ?? 'later'}${s?.approved_by ? ` (approved by ${s.approved_by})` : ''}: purge ${s?.id} runs then, without this job (Slack lists it).`,
      );
      break;
    case 'failed':
      annotate('error', 'CDN purge failed', `the CDN refused the purge of ${zone}${error}`);
      break;
    case 'rejected':
      annotate('error', 'CDN purge denied', `the purge of ${zone} was denied in Slack${error}`);
      break;
    case 'expired':
      annotate(
        'error',
        'CDN purge expired',
        `nobody approved the purge of ${zone} in Slack in time`,
      );
      break;
    case 'unknown':
      annotate(
        'warning',
        'CDN purge not confirmed',
        `the CDN did not confirm the purge of ${zone}: it may have purged; look in Slack before trying again${error}`,
      );
      break;
    case 'timeout':
      annotate('error', 'CDN purge timed out', outcome.message ?? 'timed out');
      break;
    case 'refused':
      annotate('error', 'CDN purge refused', outcome.message ?? 'refused');
      break;
    case 'unreachable':
      annotate('error', 'CDN chat-ops bot unreachable', outcome.message ?? 'no answer');
      break;
  }
  if (!actions) return;
  const status = s?.status ?? '';
  if (env.GITHUB_OUTPUT) {
    const line = (/** @type {string} */ name, /** @type {unknown} */ value) =>
      `${name}=${String(value ?? '').replace(/[\r\n]/g, ' ')}\n`;
    appendFileSync(
      env.GITHUB_OUTPUT,
      line('purge-id', s?.id) + line('status', status) + line('result', outcome.result),
    );
  }
  if (env.GITHUB_STEP_SUMMARY) {
    const cell = (/** @type {string} */ t) =>
      t
        .replace(/[\r\n]+/g, ' ')
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/\|/g, '&#124;');
    const account = s?.account ?? (o.body.account ? String(o.body.account) : '');
    const rows = [
      ['Zone', `${zone}${account ? ` (CDN account ${account})` : ''}`],
      ['What', o.what],
      [
        'Result',
        `${outcome.result}${status && status !== outcome.result ? ` (status ${status})` : ''}`,
      ],
    ];
    if (s?.progress && s.progress.total > 0)
      rows.push(['Done', `${s.progress.done} of ${s.progress.total}`]);
    if (s?.not_before) rows.push(['Not before', s.not_before]);
    if (s?.id) rows.push(['Purge id', s.id]);
    if (s?.approved_by) rows.push(['Approved by', s.approved_by]);
    if (o.body.reason) rows.push(['Reason', String(o.body.reason)]);
    if (s?.error) rows.push(['Error', s.error]);
    else if (EXIT[outcome.result] !== 0 && outcome.message) rows.push(['Why', outcome.message]);
    const table = rows.map(([name, value]) => `| ${name} | ${cell(value ?? '')} |`).join('\n');
    appendFileSync(
      env.GITHUB_STEP_SUMMARY,
      `### CDN purge of ${cell(zone)}: ${outcome.result}\n\n| | |\n|---|---|\n${table}\n\n`,
    );
  }
}

async function main() {
  /** @type {Options | undefined} */
  let o;
  try {
    o = options(process.argv.slice(2));
  } catch (error) {
    // parseArgs says what is wrong with the flags as a TypeError with an ERR_PARSE_ARGS_ code.
    const code = /** @type {{ code?: unknown }} */ (error).code;
    const badFlag = typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
    if (!(error instanceof Error) || (!(error instanceof Usage) && !badFlag)) throw error;
    annotate('error', 'cdn-purge', `${error.message} (cdn-purge --help says more)`);
    return EXIT.usage;
  }
  if (!o) {
    say(USAGE);
    return 0;
  }
  const outcome = await purge(o);
  report(o, outcome);
  return EXIT[outcome.result];
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    annotate(
      'error',
      'cdn-purge',
      `unexpected error: ${error instanceof Error ? error.message : error}`,
    );
    process.exitCode = EXIT.unreachable;
  },
);
