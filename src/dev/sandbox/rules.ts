// What the sandbox answers where the CDN API spec leaves a limit or a shape open.

/** The sandbox's answers where the spec leaves a limit or a shape open. */
export interface SandboxRules {
  /** Most files or tags in one purge request. */
  maxPurgeItems: number;
  maxAnalyticsPoints: number;
  /**
   * Whether `until` is exclusive, or inclusive: the bucket starting at `until` is answered too
   * (and counted in the totals), as some analytics APIs do. Either way the bucket holding `since`
   * is answered whole.
   */
  analyticsUntil: 'exclusive' | 'inclusive';
  /** What the settings path accepts in its zone segment. */
  settingsPath: 'id-or-name' | 'id-only' | 'name-only';
  /** The create response, which the spec does not show: the zone in `data`, bare, or no body. */
  createResponse: 'envelope' | 'top-level' | 'empty';
}
