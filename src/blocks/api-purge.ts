// What a purge asked for over the HTTP API adds to its Slack message: who (the token and the CI's
// actor), in which CDN account, what (a few of its URLs or tags), where it comes from (repository,
// commit, the run's link). Every string here came from the API's caller, so every one is escaped;
// the run's link is a link only when it is http(s).
import type { KnownBlock } from '@slack/types';
import type { ApiPurge } from '../store/api-purges.js';
import { tokenLabel } from './actors.js';
import { andMore, fitBlocks } from './fit.js';
import type { Message } from './message.js';
import { clip, code, join, link, type Mrkdwn, md, mrkdwn, quote, truncate } from './text.js';

/** How many characters of a commit are shown (as `git log --oneline` does, a little longer). */
const COMMIT_CHARS = 12;
/** How long one URL may be in the line of examples. */
const SAMPLE_CHARS = 200;

/** The run's link, only when it is an http(s) URL (anything else is shown as text, escaped). */
export function runLink(runUrl: string): Mrkdwn {
  let href: string | undefined;
  try {
    const url = new URL(runUrl);
    // The parsed form: spaces, `<`, `>` and quotes percent-encoded, so the link cannot end early.
    if (url.protocol === 'https:' || url.protocol === 'http:') href = url.href;
  } catch {
    href = undefined;
  }
  return href !== undefined && href.length <= 3_000
    ? link(href, 'the CI run')
    : md`run ${code(truncate(runUrl, SAMPLE_CHARS))}`;
}

/** The blocks put above an API purge's progress and result: who, what, where, from where. */
export function apiPurgeHeader(
  purge: Pick<ApiPurge, 'tokenName' | 'context' | 'reason' | 'total'> &
    Partial<Pick<ApiPurge, 'accountName'>>,
  sample: readonly string[],
): KnownBlock[] {
  const context = purge.context ?? {};
  const facts: Mrkdwn[] = [md`:robot_face: Asked by ${tokenLabel(purge.tokenName, context.actor)}`];
  // The zone's CDN account: two accounts may hold zones of the same name.
  if (purge.accountName) facts.push(md`CDN account ${code(purge.accountName)}`);
  if (context.repository) facts.push(md`repository ${code(truncate(context.repository, 200))}`);
  if (context.commit) facts.push(md`commit ${code(context.commit.slice(0, COMMIT_CHARS))}`);
  if (context.run_url) facts.push(runLink(context.run_url));
  const elements = [mrkdwn(clip(join(facts, ' · '), 2_000))];
  if (sample.length > 0) {
    const more = andMore(Math.max(0, purge.total - sample.length));
    const parts = sample.map((item) => code(truncate(item, SAMPLE_CHARS)));
    elements.push(mrkdwn(clip(join(more ? [...parts, more] : parts, ', '), 2_000)));
  }
  if (purge.reason) elements.push(mrkdwn(quote(clip(md`${purge.reason}`, 1_000))));
  return [{ type: 'context', elements }];
}

/** A message of the purge with the API's header above it (within a message's 50 blocks). */
export function withApiHeader(header: KnownBlock[], body: Message): Message {
  return { text: body.text, blocks: fitBlocks([...header, ...body.blocks], 'message') };
}
