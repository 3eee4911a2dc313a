// Both Slack app manifests against the app itself: manifest.yml (Socket Mode) and
// manifest-http.yml (HTTP) declare exactly the commands, shortcuts and events the real app
// (buildApp) registers listeners for, ask for the scopes it asks for, and differ only in the
// settings of their mode (fields: https://docs.slack.dev/reference/app-manifest). Every scope has
// its line in docs/scopes.md, and every Web API method the bot calls is named there.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { App } from '@slack/bolt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPES, SLACK_EVENTS_PATH } from '../src/app.js';
import { CdnTransport } from '../src/cdn/transport.js';
import type { ChartRenderer } from '../src/charts/traffic-chart.js';
import { usageHint } from '../src/listeners/commands/registry.js';
import { STEP_DEFINITIONS } from '../src/listeners/functions/steps.js';
import { buildTestApp, testConfig } from './helpers/app.js';
import { InstantClock } from './helpers/clock.js';
import { captureLogs } from './helpers/logs.js';
import { testStore } from './helpers/store.js';

// biome-ignore lint/suspicious/noExplicitAny: a manifest is YAML, checked field by field below
type Manifest = any;

const read = async (name: string): Promise<Manifest> =>
  parse(await readFile(new URL(`../${name}`, import.meta.url), 'utf8'));

/** Bolt's shortcut payload types, as the manifest spells them. */
const SHORTCUT_TYPES: Record<string, string> = { message_action: 'message', shortcut: 'global' };

/** Bolt's default path for OAuth's redirect (InstallerOptions.redirectUriPath). */
const OAUTH_REDIRECT_PATH = '/slack/oauth_redirect';

interface Registered {
  commands: string[];
  shortcuts: Array<{ type: string; callback_id: string }>;
  events: string[];
  /** Workflow Builder steps (`app.function`), by callback id. */
  functions: string[];
  /** Listeners of interactivity (actions, views) and of options loads, named or not. */
  interactive: number;
  options: number;
}

/**
 * What the real app registers listeners for, read by watching Bolt's App while buildApp runs. A
 * listener with a pattern (RegExp) is a fallback for what nothing else takes, not something the
 * manifest declares.
 */
async function registered(): Promise<Registered> {
  const spies = {
    command: vi.spyOn(App.prototype, 'command'),
    shortcut: vi.spyOn(App.prototype, 'shortcut'),
    event: vi.spyOn(App.prototype, 'event'),
    action: vi.spyOn(App.prototype, 'action'),
    view: vi.spyOn(App.prototype, 'view'),
    options: vi.spyOn(App.prototype, 'options'),
    function: vi.spyOn(App.prototype, 'function'),
  };
  const { store, clock } = await testStore('sqlite', { clock: new InstantClock() });
  const config = testConfig(
    { botToken: 'xoxb-manifest', apiUrl: 'http://127.0.0.1:9/api/' },
    { baseUrl: 'http://127.0.0.1:9/v1' },
    { BOT_MODE: 'http', SLACK_SIGNING_SECRET: 'manifest-signing-secret' },
  );
  const transport = new CdnTransport();
  try {
    buildTestApp(config, {
      store,
      transport,
      clock,
      logger: captureLogs().logger,
      // Never drawn: only the listeners are looked at.
      chartRenderer: {} as ChartRenderer,
    });
  } finally {
    await transport.close();
  }
  const named = (value: unknown): value is string => typeof value === 'string';
  return {
    commands: spies.command.mock.calls.map(([name]): unknown => name).filter(named),
    shortcuts: spies.shortcut.mock.calls.flatMap(([constraints]) => {
      const { callback_id: id, type } = constraints as { callback_id: unknown; type?: string };
      return named(id)
        ? [{ type: SHORTCUT_TYPES[type ?? ''] ?? String(type), callback_id: id }]
        : [];
    }),
    events: spies.event.mock.calls.map(([type]): unknown => type).filter(named),
    functions: spies.function.mock.calls.map(([id]): unknown => id).filter(named),
    interactive: spies.action.mock.calls.length + spies.view.mock.calls.length,
    options: spies.options.mock.calls.length,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** `manifest` without the fields that differ by mode: request URLs, the socket, token rotation. */
function withoutModeSettings(manifest: Manifest): Manifest {
  const copy = structuredClone(manifest);
  for (const command of copy.features.slash_commands) delete command.url;
  delete copy.oauth_config.redirect_urls;
  delete copy.settings.event_subscriptions.request_url;
  delete copy.settings.interactivity.request_url;
  delete copy.settings.interactivity.message_menu_options_url;
  delete copy.settings.socket_mode_enabled;
  delete copy.settings.token_rotation_enabled;
  return copy;
}

describe('the app manifests', () => {
  it('declare what the app listens for, in both modes, and nothing it does not', async () => {
    const app = await registered();
    // Seen at all: a listener registered some other way would leave these empty.
    expect(app.commands).toEqual(['/cdn']);
    expect(app.events.length).toBeGreaterThan(0);
    for (const name of ['manifest.yml', 'manifest-http.yml']) {
      const manifest = await read(name);
      const commands = manifest.features.slash_commands.map((c: { command: string }) => c.command);
      expect(commands, name).toEqual(app.commands);
      const shortcuts = manifest.features.shortcuts.map(
        ({ type, callback_id }: { type: string; callback_id: string }) => ({ type, callback_id }),
      );
      expect(shortcuts, name).toEqual(app.shortcuts);
      // A step's runs come as `function_executed` events, to which the app subscribes.
      const events = app.functions.length > 0 ? [...app.events, 'function_executed'] : app.events;
      expect([...manifest.settings.event_subscriptions.bot_events].sort(), name).toEqual(
        [...events].sort(),
      );
      // Its Workflow Builder steps: one listener each, inputs and outputs from one list.
      expect(Object.keys(manifest.functions ?? {}).sort(), name).toEqual([...app.functions].sort());
      expect(manifest.functions, name).toEqual(STEP_DEFINITIONS);
      expect(manifest.settings.interactivity.is_enabled, name).toBe(app.interactive > 0);
      expect([...manifest.oauth_config.scopes.bot].sort(), name).toEqual([...BOT_SCOPES].sort());
      expect(manifest.oauth_config.scopes.user, name).toBeUndefined();
      expect(manifest.features.app_home.home_tab_enabled, name).toBe(
        app.events.includes('app_home_opened'),
      );
      // Every workspace of a Grid organization from one install (installations by organization).
      expect(manifest.settings.org_deploy_enabled, name).toBe(true);
    }
  });

  it('differ only in the settings of their mode', async () => {
    const socket = await read('manifest.yml');
    const http = await read('manifest-http.yml');
    expect(withoutModeSettings(http)).toEqual(withoutModeSettings(socket));
    expect(socket.settings.socket_mode_enabled).toBe(true);
    expect(http.settings.socket_mode_enabled).toBe(false);
    // Socket Mode has no request URL anywhere: Slack sends everything over the socket.
    expect(JSON.stringify(socket)).not.toMatch(/https?:\/\//);
  });

  it('point every HTTP request URL at the receiver, and the redirect at the OAuth callback', async () => {
    const app = await registered();
    const http = await read('manifest-http.yml');
    const events = new URL(http.settings.event_subscriptions.request_url);
    expect(events.protocol).toBe('https:');
    expect(events.pathname).toBe(SLACK_EVENTS_PATH);
    const urls = [
      ...http.features.slash_commands.map((c: { url: string }) => c.url),
      http.settings.interactivity.request_url,
      // Options loads (external selects) come to their own URL, needed once any is listened for.
      ...(app.options > 0 ? [http.settings.interactivity.message_menu_options_url] : []),
    ];
    expect(urls).toEqual(urls.map(() => events.href));
    expect(http.oauth_config.redirect_urls).toEqual([
      new URL(OAUTH_REDIRECT_PATH, events.origin).href,
    ]);
    // Bot tokens rotate over HTTP (OAuth installs), not in Socket Mode (SLACK_BOT_TOKEN).
    expect(http.settings.token_rotation_enabled).toBe(true);
  });

  it("gives the slash command the subcommand list's usage hint, with mentions escaped", async () => {
    for (const name of ['manifest.yml', 'manifest-http.yml']) {
      const [command] = (await read(name)).features.slash_commands;
      // The hint comes from the one list of subcommands: a new subcommand must show up here too.
      expect(command.usage_hint, name).toBe(usageHint());
      expect(command.should_escape, name).toBe(true);
    }
  });
});

/** docs/scopes.md: its table's scopes, the methods of each, and the methods that need none. */
async function scopesDoc(): Promise<{ scopes: string[]; methods: string[] }> {
  const text = await readFile(new URL('../docs/scopes.md', import.meta.url), 'utf8');
  const rows = [...text.matchAll(/^\| `([a-z:.]+)` \|.*\|(.*)\|$/gm)];
  const methodsIn = (cell: string) =>
    [...cell.matchAll(/`([a-z]+(?:\.[a-zA-Z0-9]+)+)`/g)].map((m) => m[1] ?? '');
  const noScope = text.slice(text.indexOf('Methods the bot calls that need no scope'));
  return {
    scopes: rows.map(([, scope]) => scope ?? ''),
    methods: [
      ...rows.flatMap(([, , cell]) => methodsIn(cell ?? '')),
      ...methodsIn(noScope.split('\n\n')[0] ?? ''),
    ],
  };
}

/** Production sources (src/ but src/dev/), dots joined across line breaks (`client.users\n.info(`). */
async function productionSource(): Promise<string> {
  const root = new URL('../src/', import.meta.url).pathname;
  const files = (await readdir(root, { recursive: true })).filter(
    (name) => name.endsWith('.ts') && !name.startsWith('dev/'),
  );
  const texts = await Promise.all(files.map((name) => readFile(join(root, name), 'utf8')));
  return texts.join('\n').replace(/\s*\.\s*/g, '.');
}

/** Web API methods Bolt calls for the app, never in its own source. */
const CALLED_BY_BOLT = ['auth.test', 'oauth.v2.access'];

describe('docs/scopes.md', () => {
  it('justifies exactly the scopes the manifests ask for, one line each', async () => {
    const { scopes } = await scopesDoc();
    expect(new Set(scopes).size).toBe(scopes.length);
    expect([...scopes].sort()).toEqual([...BOT_SCOPES].sort());
    for (const name of ['manifest.yml', 'manifest-http.yml']) {
      expect([...(await read(name)).oauth_config.scopes.bot].sort(), name).toEqual(
        [...scopes].sort(),
      );
    }
  });

  it('names every Web API method the bot calls, and only those', async () => {
    const { methods } = await scopesDoc();
    const source = await productionSource();
    const called = new Set(
      [
        ...source.matchAll(
          /\bclient\.((?:chat|conversations|files|functions|users|usergroups|views|auth|oauth|team|apps|reactions|pins|bookmarks|admin)(?:\.[a-zA-Z]+)+)\(/g,
        ),
      ].map(([, method]) => method ?? ''),
    );
    expect(called.size).toBeGreaterThan(5);
    expect([...called].filter((method) => !methods.includes(method))).toEqual([]);
    const stale = methods.filter(
      (method) => !called.has(method) && !CALLED_BY_BOLT.includes(method),
    );
    expect(stale).toEqual([]);
  });
});
