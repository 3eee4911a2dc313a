// The purge form: URLs or tags are checked inline and purged after it closes; Everything moves on
// to the confirmation modal, and URLs the zone picked does not serve to the question of the rest.
import { inlineErrorText } from '../../blocks/errors.js';
import { PURGE_IDS, SCHEDULED_PURGE_IDS, ZONE_PICKER_IDS } from '../../blocks/ids.js';
import { purgeRefusedInline } from '../../blocks/purge.js';
import { purgeHoldModal } from '../../blocks/purge-hold.js';
import { scheduledPurgeMessage } from '../../blocks/scheduled-purges.js';
import { truncate } from '../../blocks/text.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { splitItems } from '../../services/purge/purge-targets.js';
import { parseWhenField, type ScheduleSpec } from '../../services/purge/schedule-time.js';
import type { Zone } from '../../services/zones/zones.js';
import { originTarget } from '../../slack/message-target.js';
import { decodeOrigin, encodeOrigin, everythingModal, replyTo } from '../commands/context.js';
import { callerOf, type SubmitArgs } from '../context.js';

export function purgeFormSubmit(deps: AppDeps) {
  return async ({ ack, view, context, client }: SubmitArgs) => {
    const caller = callerOf(context);
    const values = view.state.values;
    // The purge form's own picker (a zone with its CDN account), or the shared one of a form
    // opened before it (the zone's id alone).
    const zoneBlock = values[PURGE_IDS.zoneBlock];
    const zoneValue = (zoneBlock?.[ZONE_PICKER_IDS.purge] ?? zoneBlock?.[ZONE_PICKER_IDS.action])
      ?.selected_option?.value;
    const mode =
      values[PURGE_IDS.modeBlock]?.[PURGE_IDS.modeInput]?.selected_option?.value ?? 'urls';
    const words = (values[PURGE_IDS.itemsBlock]?.[PURGE_IDS.itemsInput]?.value ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    const afterwards = (
      values[PURGE_IDS.verifyBlock]?.[PURGE_IDS.verifyInput]?.selected_options ?? []
    ).map((option) => option.value);
    const verify = afterwards.includes('verify');
    const warm = afterwards.includes('warm');
    const inline = (block: string, message: string) =>
      ack({ response_action: 'errors', errors: { [block]: truncate(message, 2000) } });

    if (!zoneValue) return inline(PURGE_IDS.zoneBlock, 'Pick a zone.');
    const origin = decodeOrigin(view.private_metadata, deps.isSlackResponseUrl);
    let zone: Zone;
    try {
      // Checked again on submit: access or the purge channels may have changed while it was open.
      // In the account the option named.
      zone = await deps.purgeForm.picked(caller, origin.channelId, readPurgeZoneValue(zoneValue));
    } catch (error) {
      return inline(PURGE_IDS.zoneBlock, inlineErrorText(error));
    }
    // "When": empty for now; `in 30m`, `at 02:00`… for later (read in the person's time zone).
    let when: ScheduleSpec | undefined;
    let notBefore: number | undefined;
    try {
      when = parseWhenField(
        values[SCHEDULED_PURGE_IDS.whenBlock]?.[SCHEDULED_PURGE_IDS.whenInput]?.value ?? '',
      );
      if (when) notBefore = (await deps.scheduledPurges.when(caller, when)).at;
    } catch (error) {
      if (error instanceof AppError)
        return inline(SCHEDULED_PURGE_IDS.whenBlock, inlineErrorText(error));
      throw error;
    }
    if (mode === 'everything') {
      const next = notBefore === undefined ? origin : { ...origin, notBefore };
      return ack({ response_action: 'update', view: everythingModal(zone, next) });
    }
    // In tag mode every word is a tag; `tag:` prefixes are accepted too.
    const items =
      mode === 'tags'
        ? { urls: [], tags: words.map((w) => w.replace(/^tag:/i, '')), unknown: [] }
        : splitItems(words);
    if (items.urls.length + items.tags.length + items.unknown.length === 0) {
      return inline(
        PURGE_IDS.itemsBlock,
        mode === 'tags' ? 'Add at least one cache tag.' : 'Add at least one URL.',
      );
    }
    const plan = await deps.purges.plan(
      caller,
      origin.channelId,
      { kind: 'items', zone: zone.id, ...items },
      zone.accountName,
    );
    if (plan.rejected.length > 0) return inline(PURGE_IDS.itemsBlock, purgeRefusedInline(plan));
    if (when) {
      // For later: no held purge waits that long, so URLs the zone does not serve are refused.
      let scheduled: Awaited<ReturnType<AppDeps['scheduledPurges']['schedule']>>;
      try {
        if (plan.elsewhere.length > 0)
          throw new AppError({ code: 'schedule_elsewhere', count: plan.elsewhere.length });
        scheduled = await deps.scheduledPurges.schedule(caller, origin.channelId, plan, when, {
          ...(verify && mode === 'urls' ? { verify: true } : {}),
        });
      } catch (error) {
        if (error instanceof AppError)
          return inline(SCHEDULED_PURGE_IDS.whenBlock, inlineErrorText(error));
        throw error;
      }
      await ack();
      await originTarget(client, origin, caller.userId, deps.logger, 'ephemeral').post(
        scheduledPurgeMessage(scheduled),
      );
      return;
    }
    // URLs the zone picked does not serve: the form asks whether to purge the rest.
    if (plan.elsewhere.length > 0) {
      const held = await deps.purgeHolds.hold(plan);
      const metadata = encodeOrigin({ ...origin, heldId: held.id });
      return ack({ response_action: 'update', view: purgeHoldModal(held, metadata) });
    }
    try {
      const reply = replyTo(origin, caller.userId, deps.clock.now());
      await deps.purges.start(
        plan,
        reply,
        mode === 'urls'
          ? { ...(verify ? { verify: true } : {}), ...(warm ? { warm: true } : {}) }
          : {},
      );
    } catch (error) {
      // A refusal (the flood limit, no key) is said in the form; anything else, by the error policy.
      if (error instanceof AppError) return inline(PURGE_IDS.itemsBlock, inlineErrorText(error));
      throw error;
    }
    await ack();
  };
}

/**
 * The CDN account and zone id a purge form's zone option names: `<account>/<zone id>` (an
 * account's name has no slash), or the id alone (no account named: src/blocks/zones.ts).
 */
function readPurgeZoneValue(value: string): { account?: string; zoneId: string } {
  const slash = value.indexOf('/');
  return slash < 0
    ? { zoneId: value }
    : { account: value.slice(0, slash), zoneId: value.slice(slash + 1) };
}
