// Buttons and other block actions.
import type { App, Middleware, SlackAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import {
  ACCOUNTS_IDS,
  APPROVAL_IDS,
  AUDIT_IDS,
  CONFIG_IDS,
  FREEZE_IDS,
  HOME_IDS,
  LOGOUT_IDS,
  PURGE_IDS,
  RATELIMIT_IDS,
  SCHEDULED_PURGE_IDS,
  TOKENS_IDS,
  VERIFY_IDS,
  WATCH_IDS,
  ZONES_IDS,
} from '../../blocks/ids.js';
import type { AppDeps } from '../../deps.js';
import { tracked } from '../context.js';
import { unmatched } from '../unmatched.js';
import { accountAdd, accountRekey, accountRemove, accountRename } from './account-buttons.js';
import { accountPickButton } from './account-pick-buttons.js';
import { approveButton, cancelButton, denyButton } from './approval-buttons.js';
import { auditPage } from './audit-page.js';
import { configPurgeChannels } from './config-purge-channels.js';
import { freezeExceptionButton } from './freeze-buttons.js';
import { homeAnalytics, homeCreateZone, homeListZones, homeLogin } from './home-buttons.js';
import { homeCancelScheduled } from './home-cancel-scheduled.js';
import { homeStopReport } from './home-stop-report.js';
import { logoutButton, logoutCancel } from './logout-buttons.js';
import { purgeHoldCancel, purgeHoldConfirm } from './purge-hold-buttons.js';
import { purgeRetry } from './purge-retry.js';
import { rateLimitButton } from './ratelimit-buttons.js';
import { scheduledPurgeCancel } from './scheduled-purge-cancel.js';
import { tokensCreate, tokensRevoke } from './token-buttons.js';
import { unknownAction } from './unknown.js';
import { verifyButton, verifyPurgeAgain } from './verify-buttons.js';
import {
  watchMute,
  watchNotifyLive,
  watchRateLimit,
  watchSnooze,
  watchUnmute,
  watchUnmuteListed,
} from './watch-buttons.js';
import { zoneAnalytics } from './zone-analytics.js';
import { zonesPage } from './zones-page.js';

/**
 * Where a button lives: a message's click carries a response_url, an App Home's a view; `either`
 * for buttons shown on both (the accounts'), which only open modals.
 */
type Surface = 'message' | 'home' | 'either';

export function register(app: App, deps: AppDeps): void {
  const handled: Array<string | RegExp> = [];
  const on = <Action extends SlackAction>(
    surface: Surface,
    id: string | RegExp,
    listener: Middleware<SlackActionMiddlewareArgs<Action>>,
  ) => {
    handled.push(id);
    app.action<Action>(
      id,
      tracked(async (args) => {
        // Slack always sends what the surface implies; a payload without it is hand-made.
        const body = args.body as { response_url?: unknown; view?: unknown };
        const fromMessage = typeof body.response_url === 'string';
        const fromHome = typeof body.view === 'object';
        const fits =
          surface === 'message'
            ? fromMessage
            : surface === 'home'
              ? fromHome
              : fromMessage || fromHome;
        if (!fits) {
          await args.ack();
          deps.logger.info({ surface }, 'action from the wrong surface dropped');
          return;
        }
        await listener(args);
      }),
    );
  };
  const pager = zonesPage(deps);
  on('message', ZONES_IDS.previous, pager);
  on('message', ZONES_IDS.next, pager);
  const auditPager = auditPage(deps);
  on('message', AUDIT_IDS.previous, auditPager);
  on('message', AUDIT_IDS.next, auditPager);
  on('home', HOME_IDS.login, homeLogin(deps));
  on('home', HOME_IDS.listZones, homeListZones(deps));
  on('home', HOME_IDS.createZone, homeCreateZone(deps));
  on('home', HOME_IDS.analytics, homeAnalytics());
  on('home', new RegExp(`^${HOME_IDS.stopReport}_\\d+$`), homeStopReport(deps));
  on('home', new RegExp(`^${HOME_IDS.cancelScheduled}_\\d+$`), homeCancelScheduled(deps));
  on('either', ACCOUNTS_IDS.add, accountAdd(deps));
  on('either', new RegExp(`^${ACCOUNTS_IDS.rename}_\\d+$`), accountRename(deps));
  on('either', new RegExp(`^${ACCOUNTS_IDS.rekey}_\\d+$`), accountRekey(deps));
  on('either', new RegExp(`^${ACCOUNTS_IDS.remove}_\\d+$`), accountRemove(deps));
  on('message', TOKENS_IDS.create, tokensCreate(deps, 'message'));
  on('home', TOKENS_IDS.homeCreate, tokensCreate(deps, 'home'));
  on('message', new RegExp(`^${TOKENS_IDS.revoke}_\\d+$`), tokensRevoke(deps, 'message'));
  on('home', new RegExp(`^${TOKENS_IDS.homeRevoke}_\\d+$`), tokensRevoke(deps, 'home'));
  // One retry button per zone in a result message: purge_retry_0, purge_retry_1, …
  on('message', new RegExp(`^${PURGE_IDS.retry}_\\d+$`), purgeRetry(deps));
  // One Verify button per zone in a result message, beside its Retry: verify_purge_0, …
  on('message', new RegExp(`^${VERIFY_IDS.verify}_\\d+$`), verifyButton(deps));
  on('message', VERIFY_IDS.purgeAgain, verifyPurgeAgain(deps));
  on('message', PURGE_IDS.holdConfirm, purgeHoldConfirm(deps));
  // One button per CDN account holding an ambiguous zone name: purge_pick_account_0, _1, …
  on('message', new RegExp(`^${PURGE_IDS.pickAccount}_\\d+$`), accountPickButton(deps));
  on('message', PURGE_IDS.holdCancel, purgeHoldCancel(deps));
  // One per scheduled purge shown: scheduled_purge_cancel_0, _1, …
  on('message', new RegExp(`^${SCHEDULED_PURGE_IDS.cancel}_\\d+$`), scheduledPurgeCancel(deps));
  on('message', new RegExp(`^${ZONES_IDS.analytics}_\\d+$`), zoneAnalytics(deps));
  on('message', APPROVAL_IDS.approve, approveButton(deps));
  on('message', APPROVAL_IDS.deny, denyButton(deps));
  on('message', APPROVAL_IDS.cancel, cancelButton(deps));
  on('message', CONFIG_IDS.purgeChannels, configPurgeChannels(deps));
  on('message', FREEZE_IDS.approve, freezeExceptionButton(deps, 'approved'));
  on('message', FREEZE_IDS.deny, freezeExceptionButton(deps, 'denied'));
  on('message', RATELIMIT_IDS.on, rateLimitButton(deps, true));
  on('message', RATELIMIT_IDS.off, rateLimitButton(deps, false));
  on('message', WATCH_IDS.snooze, watchSnooze(deps));
  on('message', WATCH_IDS.mute, watchMute(deps));
  on('message', WATCH_IDS.rateLimit, watchRateLimit(deps));
  on('message', WATCH_IDS.notifyLive, watchNotifyLive(deps));
  on('message', WATCH_IDS.unmute, watchUnmute(deps));
  on('message', new RegExp(`^${WATCH_IDS.unmuteListed}_\\d+$`), watchUnmuteListed(deps));
  on('message', LOGOUT_IDS.confirm, logoutButton(deps, false));
  on('message', LOGOUT_IDS.delete, logoutButton(deps, true));
  on('message', LOGOUT_IDS.cancel, logoutCancel());
  // Last, and only for what nothing above handles: Bolt runs every listener that matches.
  app.action(unmatched(handled), tracked(unknownAction(deps)));
}
