// Every callback, block and action id, one `as const` map per feature: never a scattered literal.

export const ZONES_IDS = {
  /** One per zone in a list: zones_analytics_0, zones_analytics_1, … */
  analytics: 'zones_analytics',
  previous: 'zones_previous',
  next: 'zones_next',
  pagerBlock: 'zones_pager',
} as const;

export const LOGIN_IDS = {
  callback: 'login_modal',
  keyBlock: 'login_key',
  keyInput: 'login_key_input',
  baseUrlBlock: 'login_base_url',
  baseUrlInput: 'login_base_url_input',
} as const;

export const CREATE_IDS = {
  callback: 'create_zone_modal',
  domainBlock: 'create_domain',
  domainInput: 'create_domain_input',
  planBlock: 'create_plan',
  planInput: 'create_plan_input',
} as const;

export const ZONE_PICKER_IDS = {
  /** Every zone picker uses this action id, so one options listener serves them all... */
  action: 'zone_picker',
  /** ...but the purge form's: the zones of every CDN account the person may purge in. */
  purge: 'zone_picker_purge',
} as const;

export const HOME_IDS = {
  login: 'home_login',
  listZones: 'home_list_zones',
  createZone: 'home_create_zone',
  analytics: 'home_analytics',
  /** One per schedule: home_stop_report_0, home_stop_report_1, … */
  stopReport: 'home_stop_report',
  /** One per scheduled purge: home_cancel_scheduled_0, home_cancel_scheduled_1, … */
  cancelScheduled: 'home_cancel_scheduled',
  actionsBlock: 'home_actions',
} as const;

export const PURGE_IDS = {
  retry: 'purge_retry',
  resultActions: 'purge_result_actions',
  formCallback: 'purge_form',
  zoneBlock: 'purge_zone',
  modeBlock: 'purge_mode',
  modeInput: 'purge_mode_input',
  itemsBlock: 'purge_items',
  itemsInput: 'purge_items_input',
  /** "Check at the edge once purged" (URLs only), as `--verify` on the command. */
  verifyBlock: 'purge_verify',
  verifyInput: 'purge_verify_input',
  everythingCallback: 'purge_everything_confirm',
  confirmBlock: 'purge_confirm_name',
  confirmInput: 'purge_confirm_name_input',
  reasonBlock: 'purge_reason',
  reasonInput: 'purge_reason_input',
  /** A purge held because the zone named does not serve some URLs: confirm or cancel the rest. */
  holdActions: 'purge_hold_actions',
  holdConfirm: 'purge_hold_confirm',
  holdCancel: 'purge_hold_cancel',
  holdCallback: 'purge_hold_modal',
  /** A zone name in several CDN accounts: one button per account (`purge_pick_account_<n>`). */
  pickActions: 'purge_pick_actions',
  pickAccount: 'purge_pick_account',
  /** The message shortcut "Purge URLs in this message". */
  shortcut: 'purge_message_urls',
} as const;

export const SCHEDULED_PURGE_IDS = {
  /** One per scheduled purge shown (`scheduled_purge_cancel_<n>`); the value is its id. */
  cancel: 'scheduled_purge_cancel',
  /** The purge form's optional "When" field (`in 30m`, `at 02:00`). */
  whenBlock: 'purge_when',
  whenInput: 'purge_when_input',
} as const;

export const VERIFY_IDS = {
  /** One per zone in a purge's result: verify_purge_0, verify_purge_1, … (beside its Retry). */
  verify: 'verify_purge',
  /** On a verification's summary: purge again the URLs still cached. */
  purgeAgain: 'verify_purge_again',
  summaryActions: 'verify_summary_actions',
} as const;

export const FREEZE_IDS = {
  exceptionActions: 'freeze_exception_actions',
  approve: 'freeze_exception_approve',
  deny: 'freeze_exception_deny',
  addCallback: 'freeze_add_modal',
  targetBlock: 'freeze_target',
  targetInput: 'freeze_target_input',
  windowBlock: 'freeze_window',
  windowInput: 'freeze_window_input',
  zoneBlock: 'freeze_time_zone',
  zoneInput: 'freeze_time_zone_input',
  channelBlock: 'freeze_channel',
  channelInput: 'freeze_channel_input',
  purgesBlock: 'freeze_purges',
  purgesInput: 'freeze_purges_input',
  reasonBlock: 'freeze_reason',
  reasonInput: 'freeze_reason_input',
} as const;

export const APPROVAL_IDS = {
  actionsBlock: 'approval_actions',
  approve: 'approval_approve',
  deny: 'approval_deny',
  cancel: 'approval_cancel',
  approveCallback: 'approval_approve_modal',
  denyCallback: 'approval_deny_modal',
  denyReasonBlock: 'approval_deny_reason',
  denyReasonInput: 'approval_deny_reason_input',
} as const;

export const ANALYTICS_IDS = {
  callback: 'analytics_modal',
  zoneBlock: 'analytics_zone',
  rangeBlock: 'analytics_range',
  rangeInput: 'analytics_range_input',
  channelBlock: 'analytics_channel',
  channelInput: 'analytics_channel_input',
} as const;

export const CONFIG_IDS = {
  /** The picker of the channels purges may be run from, in the /cdn config message. */
  purgeChannelsBlock: 'config_purge_channels',
  purgeChannels: 'config_purge_channels_select',
} as const;

export const RATELIMIT_IDS = {
  /**
   * Under `/cdn ratelimit <zone>`'s answer; their value is the zone's id (`<account>/<zone id>`
   * when the zone's account name is known).
   */
  actionsBlock: 'ratelimit_actions',
  on: 'ratelimit_on',
  off: 'ratelimit_off',
} as const;

export const WATCH_IDS = {
  actionsBlock: 'watch_alert_actions',
  snooze: 'watch_alert_snooze',
  mute: 'watch_alert_mute',
  rateLimit: 'watch_alert_ratelimit',
  chartBlock: 'watch_alert_chart',
  /** On `/cdn create`'s answer: watch the new zone from this channel. */
  notifyLive: 'watch_notify_live',
  /** Under a muted notice in an alert's thread; its value is the alert's id. */
  unmute: 'watch_alert_unmute',
  /** One per watch with muted rules in `/cdn watch list`: watch_unmute_0, …; value: the watch id. */
  unmuteListed: 'watch_unmute',
} as const;

export const LOGOUT_IDS = {
  /** Under `/cdn logout`'s question. */
  actionsBlock: 'logout_actions',
  /** Remove the key; watches and reports wait for the next one. */
  confirm: 'logout_confirm',
  /** Remove the key, and delete the watches and reports (or, with no key, only delete them). */
  delete: 'logout_delete',
  cancel: 'logout_cancel',
} as const;

export const AUDIT_IDS = {
  /** Previous/Next of `/cdn audit`: the value carries the filters and where the page starts. */
  previous: 'audit_previous',
  next: 'audit_next',
  pagerBlock: 'audit_pager',
} as const;

export const ACCOUNTS_IDS = {
  /** The Add / Rename / Re-key / Remove buttons, in `/cdn accounts` and on the App Home. */
  add: 'accounts_add',
  /** One per account: accounts_rename_0, accounts_rekey_0, accounts_remove_0…; value: its id. */
  rename: 'accounts_rename',
  rekey: 'accounts_rekey',
  remove: 'accounts_remove',
  addBlock: 'accounts_add_actions',
  /** One per account: accounts_actions_0, … */
  actionsBlock: 'accounts_actions',
  addCallback: 'accounts_add_modal',
  renameCallback: 'accounts_rename_modal',
  rekeyCallback: 'accounts_rekey_modal',
  removeCallback: 'accounts_remove_modal',
  nameBlock: 'accounts_name',
  nameInput: 'accounts_name_input',
  keyBlock: 'accounts_key',
  keyInput: 'accounts_key_input',
  baseUrlBlock: 'accounts_base_url',
  baseUrlInput: 'accounts_base_url_input',
} as const;

export const TOKENS_IDS = {
  /** "Create token" in `/cdn tokens`' answer, and on the App Home (home_… there). */
  create: 'tokens_create',
  homeCreate: 'home_tokens_create',
  /** One per token: tokens_revoke_0, … in a message; home_tokens_revoke_0, … on the App Home. */
  revoke: 'tokens_revoke',
  homeRevoke: 'home_tokens_revoke',
  callback: 'tokens_create_modal',
  nameBlock: 'tokens_name',
  nameInput: 'tokens_name_input',
  /** The CDN account it is for: a static select of the workspace's accounts, and every account. */
  accountBlock: 'tokens_account',
  accountInput: 'tokens_account_input',
  /** The account select's value for every account (accounts' values are their random ids). */
  allAccountsValue: 'all_accounts',
  allZonesBlock: 'tokens_all_zones',
  allZonesInput: 'tokens_all_zones_input',
  /** The zones: a multi-select served by the one zone picker's options (ZONE_PICKER_IDS.action). */
  zonesBlock: 'tokens_zones',
  kindsBlock: 'tokens_kinds',
  kindsInput: 'tokens_kinds_input',
  channelBlock: 'tokens_channel',
  channelInput: 'tokens_channel_input',
} as const;
