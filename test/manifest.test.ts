import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPES } from '../src/app.js';
import { PURGE_IDS } from '../src/blocks/ids.js';
import { usageHint } from '../src/listeners/commands/registry.js';
import { STEP_DEFINITIONS } from '../src/listeners/functions/steps.js';

describe('manifest.yml', () => {
  it('asks for exactly the scopes the app uses, and subscribes to what it listens for', async () => {
    const manifest = parse(await readFile(new URL('../manifest.yml', import.meta.url), 'utf8'));
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...BOT_SCOPES].sort());
    expect(manifest.features.slash_commands).toEqual([
      expect.objectContaining({ command: '/cdn', should_escape: true }),
    ]);
    // The hint comes from the one list of subcommands: a new subcommand must show up here too.
    expect(manifest.features.slash_commands[0].usage_hint).toBe(usageHint());
    expect(manifest.settings.event_subscriptions.bot_events).toEqual([
      'app_home_opened',
      'app_uninstalled',
      'tokens_revoked',
      'function_executed',
    ]);
    // The Workflow Builder steps are the ones the listeners register, inputs and outputs alike;
    // custom steps need an org-ready app.
    expect(manifest.functions).toEqual(STEP_DEFINITIONS);
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({ type: 'message', callback_id: PURGE_IDS.shortcut }),
    ]);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
  });
});
