// /cdn purge: URLs, paths, tags, or everything (which needs a second person), or the form. A path,
// a tag or `everything` without a zone is for the channel's default zone; full URLs alone find
// their zones by host name. Where purges are limited to some channels, only those may ask. URLs the
// zone named does not serve are refused, and the rest is purged only once the person confirms.
import { accountPickMessage } from '../../blocks/account-pick.js';
import { noticeMessage } from '../../blocks/errors.js';
import { purgeFormModal, purgeRefusedMessage } from '../../blocks/purge.js';
import { purgeHoldMessage } from '../../blocks/purge-hold.js';
import { parsePurgeArgs } from '../../services/purge/purge-targets.js';
import {
  commandOrigin,
  encodeOrigin,
  everythingModal,
  replyTo,
  type SubcommandHandler,
} from './context.js';

const USAGE =
  'Usage: `/cdn purge <zone> <url|/path>…`, `/cdn purge <url>…`, `/cdn purge <zone> tag:<tag>…`, `/cdn purge <zone> everything`, or `/cdn purge` for a form; add `--verify` to check the URLs at the edge once purged, `--warm` to ask the edge for them again (refilling its cache). With a default zone (`/cdn use <zone>`), the zone may be left out: `/cdn purge /assets/app.css`.';

export const purge: SubcommandHandler = async (context) => {
  const { args, deps, caller, command, respond, client, account } = context;
  const parsed = parsePurgeArgs(args);
  const origin = commandOrigin(command);
  const channelId = command.channel_id;

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
    await client.views.open({
      trigger_id: command.trigger_id,
      view: everythingModal(zone, origin),
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
  // URLs the zone named does not serve: refused, and the rest waits for the person's word.
  if (plan.elsewhere.length > 0) {
    const held = await deps.purgeHolds.hold(caller, channelId, plan);
    await respond(purgeHoldMessage(held));
    return;
  }
  await deps.purges.start(
    caller,
    channelId,
    plan.groups,
    replyTo(origin, caller.userId, deps.clock.now()),
    {
      ...(plan.fromDefault ? { fromDefault: true } : {}),
      ...(parsed.verify ? { verify: true } : {}),
      ...(parsed.warm ? { warm: true } : {}),
    },
  );
};
