// The real app (buildApp) as the tests boot it in their own process: configured from the
// environment a deployment would have, with the fake Slack and the CDN sandbox on loopback.
import { type BuildAppOptions, buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';

/** Where the CDN tells customers to point their CNAMEs, in the tests. */
export const EDGE = 'edge.cdn-e2e.test';

/** The configuration of the app under test: Slack and the CDN on loopback, `env` over it. */
export function testConfig(
  slack: { botToken: string; apiUrl: string },
  sandbox: { baseUrl: string },
  env: Record<string, string>,
): Config {
  return loadConfig({
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_API_URL: slack.apiUrl,
    CDN_API_BASE_URL: sandbox.baseUrl,
    CDN_EDGE_CNAME_TARGET: EDGE,
    // One process runs the bot, the fake Slack and the sandbox: background work is not paced by
    // its busy loop unless a test asks for it.
    BACKGROUND_LOOP_PERCENT: '100',
    ...env,
  });
}

/** buildApp with the CDN and edge of `config`, as main.ts does; Web API calls are not retried. */
export function buildTestApp(
  config: Config,
  options: Omit<BuildAppOptions, 'config' | 'cdnBaseUrl' | 'edgeCnameTarget' | 'clientOptions'>,
): ReturnType<typeof buildApp> {
  return buildApp({
    config,
    cdnBaseUrl: config.cdn.baseUrl ?? '',
    edgeCnameTarget: config.cdn.edgeCnameTarget ?? '',
    clientOptions: { retryConfig: { retries: 0 } },
    ...options,
  });
}
