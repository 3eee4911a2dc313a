// The app's Workflow Builder steps as the manifest declares them (`functions`): callback ids,
// inputs and outputs. test/manifest.test.ts fails when a manifest drifts from this list.

/** The callback ids of the steps, one `app.function` listener each. */
export const STEP_IDS = {
  purge: 'purge_urls_or_tags',
  fullPurge: 'request_full_purge',
  traffic: 'zone_traffic',
} as const;

interface Parameter {
  type: string;
  title: string;
  description: string;
  /** Slack's hint shown under the field in Workflow Builder. */
  hint?: string;
}

export interface StepDefinition {
  title: string;
  description: string;
  input_parameters: { properties: Record<string, Parameter>; required: string[] };
  output_parameters: { properties: Record<string, Parameter>; required: string[] };
}

/**
 * The person the step acts for: Workflow Builder fills it with "Person who used this workflow"
 * (a `slack#/types/user_id` input, the way Slack's custom-step guide passes the runner). Their
 * permissions are checked as for a command.
 */
const runner: Parameter = {
  type: 'slack#/types/user_id',
  title: 'Run as',
  description: 'The person the step acts for; their permissions are checked',
  hint: 'Pick "Person who used this workflow"',
};

const channel: Parameter = {
  type: 'slack#/types/channel_id',
  title: 'Channel',
  description: 'Where the step is announced; the channel rules of /cdn purge apply',
};

export const STEP_DEFINITIONS: Record<(typeof STEP_IDS)[keyof typeof STEP_IDS], StepDefinition> = {
  [STEP_IDS.purge]: {
    title: 'Purge URLs or tags',
    description: 'Purge URLs, paths or tags of a zone from the CDN cache',
    input_parameters: {
      properties: {
        user_id: runner,
        channel_id: channel,
        zone: {
          type: 'string',
          title: 'Zone',
          description: 'The zone (optional when the URLs name their host)',
        },
        items: {
          type: 'string',
          title: 'URLs or tags',
          description: 'URLs, /paths and tag:names, separated by spaces, commas or lines',
        },
        warm: {
          type: 'boolean',
          title: 'Warm the cache',
          description: 'Once purged, ask the edge for each URL again and count those cached',
        },
      },
      required: ['user_id', 'channel_id', 'items'],
    },
    output_parameters: {
      properties: {
        purge_id: {
          type: 'string',
          title: 'Purge id',
          description: 'The purge, as the bot knows it',
        },
        status: {
          type: 'string',
          title: 'Status',
          description: 'succeeded, failed or unknown (not confirmed by the CDN)',
        },
        purged: { type: 'integer', title: 'Purged', description: 'URLs and tags purged' },
        failed: { type: 'integer', title: 'Not purged', description: 'URLs and tags not purged' },
        warmed: {
          type: 'integer',
          title: 'Warmed',
          description: 'URLs asked again (with warming)',
        },
        cached: {
          type: 'integer',
          title: 'Cached after warming',
          description: 'URLs the edge served from its cache once warmed',
        },
      },
      required: ['purge_id', 'status', 'purged', 'failed'],
    },
  },
  [STEP_IDS.fullPurge]: {
    title: 'Request a full purge',
    description: 'Ask a second person to approve purging everything of a zone; ends once decided',
    input_parameters: {
      properties: {
        user_id: runner,
        channel_id: { ...channel, description: 'Where the approvers see the request' },
        zone: { type: 'string', title: 'Zone', description: 'The zone to purge entirely' },
        reason: { type: 'string', title: 'Reason', description: 'Why: the approvers read it' },
      },
      required: ['user_id', 'channel_id', 'zone', 'reason'],
    },
    output_parameters: {
      properties: {
        approval_id: { type: 'string', title: 'Request id', description: 'The approval request' },
        approved_by: {
          type: 'slack#/types/user_id',
          title: 'Approved by',
          description: 'The second person',
        },
        status: { type: 'string', title: 'Status', description: 'succeeded' },
        purge_id: { type: 'string', title: 'CDN purge id', description: 'As the CDN named it' },
      },
      required: ['approval_id', 'approved_by', 'status'],
    },
  },
  [STEP_IDS.traffic]: {
    title: 'Zone traffic',
    description: "A zone's requests, bandwidth and cache hit rate over a window",
    input_parameters: {
      properties: {
        user_id: runner,
        zone: { type: 'string', title: 'Zone', description: 'The zone' },
        window: {
          type: 'string',
          title: 'Window',
          description: 'One of 1h, 6h, 24h, 7d, 30d (default 24h)',
        },
      },
      required: ['user_id', 'zone'],
    },
    output_parameters: {
      properties: {
        zone: { type: 'string', title: 'Zone', description: 'The zone, by name' },
        requests: { type: 'integer', title: 'Requests', description: 'Requests in the window' },
        bandwidth: { type: 'integer', title: 'Bandwidth', description: 'Bytes served' },
        hit_rate: { type: 'number', title: 'Hit rate', description: 'Cache hit rate, 0 to 1' },
      },
      required: ['zone', 'requests', 'bandwidth', 'hit_rate'],
    },
  },
};
