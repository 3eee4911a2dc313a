// /cdn purge: URLs, paths, tags, or everything (which needs a second person), or the form. A path,
// a tag or `everything` without a zone is for the channel's default zone; full URLs alone find
// their zones by host name. Where purges are limited to some channels, only those may ask. URLs the
// zone named does not serve are refused, and the rest is purged only once the person confirms.
import { accountPickMessage } from '../../blocks/account-pick.js';
import { noticeMessage } from '../../blocks/errors.js';
import { purgeFormModal, purgeRefusedMessage } from '../../blocks/purge.js';
import { purgeHoldMessage } from '../../blocks/purge-hold.js';
import {
  scheduledPurgeCancelledMessage,
  scheduledPurgeListMessage,
  scheduledPurgeMessage,
} from '../../blocks/scheduled-purges.js';
import { AppError } from '../../errors.js';
import { isPurgeFlag, parsePurgeArgs } from '../../services/purge/purge-targets.js';
import { splitSchedule } from '../../services/purge/schedule-time.js';
import {
  commandOrigin,
  encodeOrigin,
  everythingModal,
  replyTo,
  type SubcommandHandler,
} from './context.js';

const USAGE =
  'Usage: `/cdn purge <zone> <url|/path>…`, `/cdn purge <url>…`, `/cdn purge <zone> tag:<tag>…`, `/cdn purge <zone> everything`, or `/cdn purge` for a form; add `--verify` to check the URLs at the edge once purged, `--warm` to ask the edge for them again (refilling its cache), and `at 02:00` or `in 30m` to purge later (`/cdn purge scheduled` lists those, `/cdn purge cancel <id>` cancels one). With a default zone (`/cdn use <zone>`), the zone may be left out: `/cdn purge /assets/app.css`.';

export const purge: SubcommandHandler = async (context) => {
  const { args, deps, caller, command, respond, client, account } = context;
  const origin = commandOrigin(command);
  const channelId = command.channel_id;
  const [first, ...rest] = args;
  if (first?.toLowerCase() === 'scheduled' && rest.length === 0) {
    await respond(scheduledPurgeListMessage(await deps.scheduledPurges.list(caller)));
    return;
  }
  if (first?.toLowerCase() === 'cancel' && rest.length === 1) {
    const cancelled = await deps.scheduledPurges.cancel(caller, rest[0] ?? '');
    await respond(scheduledPurgeCancelledMessage(cancelled, caller.userId));
    return;
  }
  // `at 02:00` or `in 30m` at the end: for later.
  const { words, when } = splitSchedule(args, isPurgeFlag);
  const parsed = parsePurgeArgs(words);

  if (parsed.kind === 'form') {
    // Its picker offers the zones of every CDN account the person may purge in.
    const { zone, labelled } = await deps.purgeForm.open(caller, channelId, parsed.zone, account);
    await client.views.open({
      trigger_id: command.trigger_id,
      view: purgeFormModal({ metadata: encodeOrigin(origin), labelled, ...(zone ? { zone } : {}) }),
    });
    return;
  }
  if (parsed.kind === 'everything') {
    // A zone name in several CDN accounts: the requester picks one, then confirms in the form.
    const found = await deps.accountPicks.everythingZone(caller, channelId, parsed.zone, account);
    if (found.kind === 'pick') {
      await respond(accountPickMessage(found.pick));
      return;
    }
    const { zone } = found;
    // For later: the time is read now (in the person's time zone), the request asked at once.
    const later = when ? await deps.scheduledPurges.when(caller, when) : undefined;
    await client.views.open({
      trigger_id: command.trigger_id,
      view: everythingModal(zone, later ? { ...origin, notBefore: later.at } : origin),
    });
    return;
  }
  // A zone name in several CDN accounts: the requester picks one, and this purge continues there.
  const planned = await deps.accountPicks.planPurge(caller, channelId, parsed, account);
  if (planned.kind === 'pick') {
    await respond(accountPickMessage(planned.pick));
    return;
  }
  const { plan } = planned;
  if (plan.rejected.length > 0) {
    await respond(purgeRefusedMessage(plan));
    return;
  }
  if (plan.groups.length === 0) {
    await respond(noticeMessage(USAGE));
    return;
  }
  if (when) {
    // No hold waits for a later time: such URLs are refused outright.
    if (plan.elsewhere.length > 0)
      throw new AppError({ code: 'schedule_elsewhere', count: plan.elsewhere.length });
    const scheduled = await deps.scheduledPurges.schedule(caller, channelId, plan, when, {
      ...(parsed.verify ? { verify: true } : {}),
    });
    await respond(scheduledPurgeMessage(scheduled));
    return;
  }
  // URLs the zone named does not serve: refused, and the rest waits for the person's word.
  if (plan.elsewhere.length > 0) {
    const held = await deps.purgeHolds.hold(plan);
    await respond(purgeHoldMessage(held));
    return;
  }
  await deps.purges.start(plan, replyTo(origin, caller.userId, deps.clock.now()), {
    ...(parsed.verify ? { verify: true } : {}),
    ...(parsed.warm ? { warm: true } : {}),
  });
};
