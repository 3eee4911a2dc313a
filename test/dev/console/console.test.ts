// The local console end to end: a script piped through the real app, the in-process fake Slack
// and the embedded sandbox, with the transcript asserted as a person would read it. Longer than
// ~400 lines: docs/demo.txt's transcript is asserted fragment by fragment, in the order it runs.
import { readFile } from 'node:fs/promises';
import { loadImage } from 'canvas';
import { describe, expect, it } from 'vitest';
import { purgeResultMessage } from '../../../src/blocks/purge.js';
import { CdnError } from '../../../src/cdn/errors.js';
import { TrafficChartRenderer } from '../../../src/charts/traffic-chart.js';
import { type RunningConsole, SANDBOX_STAGING_KEY } from '../../../src/dev/console/start.js';
import { CONSOLE_CHANNEL, CONSOLE_TEAM_ID } from '../../../src/dev/console/world.js';
import { SANDBOX_DEMO_KEY } from '../../../src/dev/sandbox/server.js';
import { SUBCOMMAND_NAMES } from '../../../src/listeners/commands/registry.js';
import type { PurgeRun } from '../../../src/services/purge/purge-status.js';
import { type ConsoleRun, expectInOrder, pipeConsole } from '../../helpers/console.js';

const chartRenderer = new TrafficChartRenderer();

/** Pipes `script` through a fresh console (with the one chart renderer) and returns what it printed. */
const pipe = (script: string, before?: (running: RunningConsole) => void): Promise<ConsoleRun> =>
  pipeConsole(script, { chartRenderer, ...(before ? { before } : {}) });

/** What the console prints for an answer that is an error, or input it could not take. */
const ERROR_ANSWERS = [
  '⚠️', // errorText's warning messages: refusals, the CDN's errors, "Something went wrong"
  '│ ✖', // a modal field refused
  'Something went wrong',
  'Unknown console command',
  'There is no button',
  'is gone',
  'Type /cdn … to talk to the bot',
  'Slack refused',
  'unhandled',
];

/** How the console shows /cdn logout's question, a warning that is no error answer. */
const LOGOUT_QUESTION = '⚠️ Log out of the CDN?';

describe('the console, driven by docs/demo.txt', () => {
  it('uses every /cdn subcommand of the registry', async () => {
    const script = await readFile('docs/demo.txt', 'utf8');
    const used = new Set(
      script
        .split('\n')
        .filter((line) => /^\/cdn(\s|$)/.test(line))
        .map((line) => line.split(/\s+/)[1] || 'help'),
    );
    const missing = SUBCOMMAND_NAMES.filter((name) => !used.has(name));
    expect(missing, 'subcommands docs/demo.txt never runs').toEqual([]);
  });

  it('logs in, lists, creates, rate-limits, purges, gets a purge-everything approved, charts and schedules', async () => {
    const script = await readFile('docs/demo.txt', 'utf8');
    const { transcript, console: running, store, outDir, logs } = await pipe(script);

    expectInOrder(transcript, [
      `Start with /cdn login and the sandbox's demo key: ${SANDBOX_DEMO_KEY}`,
      `name staging, the base URL left empty (the sandbox), key ${SANDBOX_STAGING_KEY}`,
      // The key is answered in a modal and not echoed.
      'alice in #ops › /cdn login',
      '┌─ CDN API key',
      '│ API key\n│ › ••••••••\n',
      '│ submit? › submit',
      '✅ The CDN API key is saved (encrypted) and works: 9 zones visible.',
      'alice in #ops › /cdn zones\n── #ops · cdn · only you can see this',
      'Zones\n═════',
      '9 zones · page 1 of 1',
      'example.com  🟢 active',
      '2 pending zones · page 1 of 1',
      '✅ @alice onboarded shop.example.dev on the pro plan. Status: 🟡 pending',
      '    shop.example.dev.  CNAME  edge.sandbox-cdn.localhost.',
      '⏳ @alice turned rate limiting on for shop.example.dev. Propagating to every edge location (up to 30 s)…',
      '⏳ @alice turned rate limiting off for shop.example.dev.',
      // One message shows progress, then is updated with the result.
      '🧹 @alice is purging 2 URLs on static.example.com… 0/2',
      '── #ops · cdn · updated',
      '✅ @alice purged 2 URLs on static.example.com.',
      '✅ @alice purged 1 tag on static.example.com.',
      '🚫 Nothing was purged: 1 item was refused.',
      'served by the zone example.com, not static.example.com',
      'You are now bob (member).',
      'bob in #ops › /cdn purge example.com everything',
      '┌─ Purge everything?',
      '│ Type example.com to confirm\n│ › example.com',
      '└─ (submitted)',
      '@bob asked to purge everything on example.com:\n▍ A bad deploy cached broken HTML everywhere',
      'Waiting for a second person. Expires 2026-11-22 10:30 UTC.',
      '[1] Approve…  [2] Deny…  [3] Cancel request',
      'You are now carol (member).',
      'carol in #ops › 1\n┌─ Approve the purge',
      '⏳ Approved by @carol. Purging everything…',
      '✅ Approved by @carol; everything on example.com was purged',
      'carol in #ops › /cdn analytics example.com 24h',
      '── #ops · cdn shared a file',
      '📊 example.com · last 24 h by hour (Europe/Paris)',
      'Marked on the chart: purge everything (11:00).',
      '📎 example.com traffic, last 24 h: ',
      '📅 Daily traffic report of example.com scheduled: #cdn-reports at 09:00 Europe/Paris, first one 2026-11-23 08:00 UTC.',
      'example.com → #cdn-reports daily at 09:00 (Europe/Paris)',
      '── #ops · carol',
      '┌─ Purge cached content',
      '│ Zone',
      '8. static.example.com (active)  (Enter keeps this)',
      '│   Enter keeps: https://static.example.com/app.css\n│                https://static.example.com/app.js',
      '✅ @carol purged 2 URLs on static.example.com.',
      'You are now alice (workspace admin).',
      'Approvers (purge everything): @leads',
      'alice in #ops › /cdn tokens',
      'Tokens for CI',
      'No tokens yet. A token lets CI purge over the HTTP API.',
      'Create token',
      'Audit log · example.com',
      '`purge.everything` on example.com · ok',
      'Audit log · static.example.com · kind:purge',
      '@carol · `purge.urls` on static.example.com · ok',
      'Audit log · since 2026-01-01',
      'Changes by @carol, dates in Europe/Paris.',
      '⏳ Making your audit export (static.example.com · kind:purge).',
      "@alice made static.example.com this channel's default zone.",
      "🧹 @alice is purging 1 URL on static.example.com (this channel's default)",
      "@alice cleared this channel's default zone.",
      '#ops now watches example.com',
      'Watched zones',
      '✅ #ops no longer watches example.com.',
      '── App Home',
      '[1] Replace API key  [2] List zones  [3] Onboard a domain  [4] Traffic analytics',
      // The retention, in one line at the end of the Home (AUDIT_RETENTION_DAYS and the uninstall grace).
      "Activity history is kept 365 days. If the app is uninstalled, its keys are deleted at once and the rest of this workspace's data 30 days later.",
      'alice in #ops › 4\n┌─ Traffic analytics',
      '│ › static',
      '│ › 7d',
      '│ › #ops',
      '📊 static.example.com · last 7 days by hour (Europe/Paris)',
    ]);
    // It ran to its end: the key removed once asked (the daily report paused), then set again,
    // as the script's last lines do.
    expectInOrder(transcript, [
      'alice in #ops › /cdn logout',
      `${LOGOUT_QUESTION} The API key of the CDN account \`default\` is removed, and:`,
      '• 1 daily report to pause: example.com → #cdn-reports at 09:00 (Europe/Paris)',
      '[1] Log out  [2] Log out and delete watches and reports  [3] Cancel',
      'alice in #ops › 1',
      '👋 The API key of the CDN account `default` is removed. 1 daily report is paused',
      'alice in #ops › /cdn login',
      // shop.example.dev, onboarded above, is the tenth.
      '✅ The CDN API key is saved (encrypted) and works: 10 zones visible.',
      // A second account, added with the key the console printed (typed in the modal, not echoed).
      'alice in #ops › /cdn accounts',
      'CDN accounts (1)',
      // default's own buttons first: it is renamed and removed like any other account.
      '[1] Rename  [2] Re-key  [3] Remove',
      '[4] Add an account',
      'alice in #ops › 4\n┌─ Add a CDN account',
      '│ › staging\n│ API key\n│ › ••••••••\n',
      '✅ Account staging added. Its key works: 2 zones visible.',
      'CDN accounts (2)',
      'default · 10 zones · ✅ key works',
      '[1] Rename  [2] Re-key  [3] Remove',
      'staging · ',
      '[4] Rename  [5] Re-key  [6] Remove',
      'alice in #ops › /cdn purge staging/static.example.com https://static.example.com/app.css --verify',
      '✅ @alice purged 1 URL on static.example.com.',
      // Verified at the edge, which serves staging's zones too: the purge took.
      '✅ Edge check of static.example.com: 1 fresh',
      '── #ops · in a thread · cdn',
      '✅ `https://static.example.com/app.css`: fresh (HEAD 200, `cache-status: SandboxEdge; fwd=miss; stored`)',
      // A change freeze, read in alice's Slack time zone, announced in the channel and listed.
      'alice in #ops › /cdn freeze add example.com 2030-12-20 18:00 → 2031-01-04 08:00 Year-end freeze',
      'A change freeze was declared on example.com',
      'declared on example.com: 2030-12-20 18:00 → 2031-01-04 08:00 (Europe/Paris) (your Slack time zone',
      'alice in #ops › /cdn freeze list',
      'Change freezes',
    ]);
    // No answer was an error (the one purge refused above is the script's point, said with 🚫),
    // nothing was refused by Slack, nothing crashed, and the key was never shown again.
    // /cdn logout's question is the one ⚠️ that answers no error.
    const answers = transcript.replace(LOGOUT_QUESTION, '');
    for (const mark of ERROR_ANSWERS) expect(answers, mark).not.toContain(mark);
    expect(transcript).not.toMatch(/the app failed/);
    expect(transcript.split(SANDBOX_DEMO_KEY)).toHaveLength(2);
    expect(logs.text()).not.toContain(SANDBOX_DEMO_KEY);
    expect(transcript.split(SANDBOX_STAGING_KEY)).toHaveLength(2);
    expect(logs.text()).not.toContain(SANDBOX_STAGING_KEY);

    // What happened at the CDN: each change once, and the purge-everything only after approval.
    const sandbox = running.sandbox;
    if (!sandbox) throw new Error('the console should have started the sandbox');
    const posts = sandbox.requests.filter((r) => r.method !== 'GET' && r.status < 300);
    expect(posts.map((r) => r.path.replace(/zone_[0-9a-f]+/, 'ZONE'))).toEqual([
      '/zones',
      '/zones/ZONE/settings',
      '/zones/ZONE/settings',
      '/zones/ZONE/purge',
      '/zones/ZONE/purge',
      '/zones/ZONE/purge',
      '/zones/ZONE/purge',
      '/zones/ZONE/purge',
      // staging/static.example.com, with the staging key.
      '/zones/ZONE/purge',
    ]);
    // The last purge reached the staging account's static.example.com, not the demo key's.
    const staging = sandbox.stateFor(SANDBOX_STAGING_KEY);
    const stagingZone = staging.byName('static.example.com');
    expect(staging.purges).toEqual([
      expect.objectContaining({
        zoneId: stagingZone?.id,
        items: ['https://static.example.com/app.css'],
      }),
    ]);
    expect(posts[1]?.body).toEqual({ limits: { enabled: true, mode: 'automatic' } });
    expect(posts[2]?.body).toEqual({ limits: { enabled: false, mode: 'automatic' } });
    expect(posts.filter((r) => JSON.stringify(r.body).includes('purge_everything'))).toHaveLength(
      1,
    );

    // The report is stored, and the key is stored (encrypted, readable only through the keyring).
    const [schedule] = await store.schedules.listForWorkspace(CONSOLE_TEAM_ID);
    expect(schedule).toMatchObject({ channelId: 'CREPORTS', timeOfDay: '09:00' });
    expect((await store.credentials.get(CONSOLE_TEAM_ID))?.apiKey).toBe(SANDBOX_DEMO_KEY);

    // Both charts are real PNGs of the documented size, at the paths printed.
    const paths = [...transcript.matchAll(/📎 [^:]+: (\S+\.png) \(PNG 1200×640/g)].map((m) => m[1]);
    expect(paths).toHaveLength(2);
    for (const path of paths) {
      expect(path?.startsWith(outDir)).toBe(true);
      const image = await loadImage(await readFile(path as string));
      expect([image.width, image.height]).toEqual([1200, 640]);
    }
  });
});

describe('the console, by hand', () => {
  it('re-asks a field the app refused, keeps slash commands out of modals, and explains itself', async () => {
    const { transcript } = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn purge example.com everything',
        'example.org',
        'because',
        'submit',
        '/cdn zones',
        'example.com',
        '',
        '7',
        '/as dave',
        '/frobnicate',
        'hello',
      ].join('\n'),
    );
    expectInOrder(transcript, [
      '│ › example.org',
      '│ submit? › submit',
      '│ ✖ Type example.com to confirm: ',
      // Only the refused field is asked again; the reason stands.
      '│ Type example.com to confirm\n│ › /cdn zones\n│ A modal is open: answer it, or /cancel it first.',
      '│ › example.com\n│ Enter: Ask for approval · /cancel: close\n│ submit? › \n└─ (submitted)',
      '[1] Approve…  [2] Deny…  [3] Cancel request',
      'alice in #ops › 7\nThere is no button 7.',
      'alice in #ops › /as dave\nWho? The console knows alice (workspace admin), bob (member), carol (member), grace (multi-channel guest), sam (single-channel guest).',
      'Unknown console command /frobnicate.',
      'alice in #ops › hello\nType /cdn … to talk to the bot',
    ]);
  });

  it('asks before a button with a confirmation, and a spent message’s button is gone', async () => {
    const { transcript } = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn report example.com daily 09:00',
        '/home',
        '9',
        'n',
        '9',
        'y',
        '9',
      ].join('\n'),
    );
    expectInOrder(transcript, [
      // Buttons 5 to 8 are the accounts' (Rename, Re-key and Remove default, Add an account).
      '[9] Stop',
      'alice in #ops › 9\nStop this report?: No more daily reports of example.com in #ops.',
      'sure? (y/n) › n\n  (not done)',
      'sure? (y/n) › y',
      '│ No daily reports scheduled.',
    ]);
    // The Stop button is gone: 9 is now the Home's next button, its Tokens section's Create token.
    expect(transcript).not.toMatch(/sure\? \(y\/n\) › y[\s\S]*\[9\] Stop/);
    expect(transcript).toMatch(/alice in #ops › 9\n┌─ Create a CI token/);
  });

  it('lists the CDN accounts with /cdn accounts: each with its zones and whether its key works', async () => {
    const { transcript } = await pipe(
      ['/cdn login', 'sandbox-demo-key', '', 'submit', '/cdn accounts'].join('\n'),
    );
    expectInOrder(transcript, ['CDN accounts (1)', 'default', 'key works', 'Add an account']);
  });

  it('sends what is typed as Slack does (a bare domain linked, entities, mentions), and the bot reads it', async () => {
    const sent: string[] = [];
    const { store } = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn watch example.com requests>50k/5m hitrate<80%',
        '/cdn report example.com daily 07:30 #cdn-reports',
        '/cdn config approvers @sre',
      ].join('\n'),
      (running) =>
        running.app.use(async ({ body, next }) => {
          if ('command' in body) sent.push(body.text);
          await next();
        }),
    );
    expect(sent).toEqual([
      'login',
      'watch <http://example.com|example.com> requests&gt;50k/5m hitrate&lt;80%',
      'report <http://example.com|example.com> daily 07:30 <#CREPORTS|cdn-reports>',
      'config approvers <!subteam^SSRE|@sre>',
    ]);
    expect(await store.watches.listForWorkspace(CONSOLE_TEAM_ID)).toMatchObject([
      { zoneName: 'example.com', rules: ['requests>50000/5m', 'hitrate<80%'] },
    ]);
    expect(await store.schedules.listForWorkspace(CONSOLE_TEAM_ID)).toMatchObject([
      { zoneName: 'example.com', channelId: 'CREPORTS', timeOfDay: '07:30' },
    ]);
    expect((await store.workspaces.get(CONSOLE_TEAM_ID))?.approverGroupId).toBe('SSRE');
  });

  it('shows what Slack refuses, and a purge failing across 1,000 zones is not refused', async () => {
    const { printed, console: running } = await pipe('');
    const failed = (i: number): PurgeRun => ({
      job: {
        id: `j${i}`,
        workspaceId: CONSOLE_TEAM_ID,
        accountId: 'acc_1',
        zoneId: `z${i}`,
        zoneName: `shop${i}.example.com`,
        actorId: 'UCONSOLE',
        fileCount: 2,
        tagCount: 0,
        status: 'failed',
        failed: { files: ['https://a/1', 'https://a/2?x=1&y=2'], tags: [] },
        purgeIds: [],
        retryOf: null,
        createdAt: 0,
        finishedAt: 1,
      },
      report: {
        ok: false,
        results: [
          {
            kind: 'files',
            items: [],
            ok: false,
            error: new CdnError('unavailable', 'down'),
          } as never,
        ],
        failed: { files: ['https://a/1', 'https://a/2?x=1&y=2'], tags: [] },
        unknown: { files: ['https://a/1', 'https://a/2?x=1&y=2'], tags: [] },
        purgeIds: [],
      },
    });
    const client = running.app.client;
    const token = running.slack.botToken;
    const result = purgeResultMessage(
      Array.from({ length: 1_000 }, (_, i) => failed(i)),
      'UCONSOLE',
    );
    await client.chat.postMessage({ token, channel: CONSOLE_CHANNEL.id, ...result });
    const oversized = Array.from({ length: 51 }, () => ({
      type: 'section' as const,
      text: { type: 'mrkdwn' as const, text: 'x' },
    }));
    await expect(
      client.chat.postMessage({ token, channel: CONSOLE_CHANNEL.id, text: 'x', blocks: oversized }),
    ).rejects.toThrow(/invalid_blocks/);
    // The console shows Slack's refusal as a Slack user would notice it, and nothing else refused.
    expect(printed().match(/Slack refused chat\.postMessage: invalid_blocks/g)).toHaveLength(1);
  });
});

describe('the console shows messages as Slack does', () => {
  it('shows a long purge as one message updated in place, not a message per step', async () => {
    const urls = Array.from({ length: 200 }, (_, i) => `https://static.example.com/a/${i}.css`);
    const { transcript } = await pipe(
      ['/cdn login', 'sandbox-demo-key', '', 'submit', `/cdn purge ${urls.join(' ')}`].join('\n'),
    );
    const purge = transcript.slice(transcript.indexOf('alice in #ops › /cdn purge'));
    // One message posted ("Purging…"), then each version of it marked as an update of that one.
    const rules = [...purge.matchAll(/^── #ops · cdn.*$/gm)].map((m) => m[0].replace(/ ─+$/, ''));
    expect(rules).toEqual([
      '── #ops · cdn',
      ...Array(rules.length - 1).fill('── #ops · cdn · updated'),
    ]);
    expect(rules.length).toBeGreaterThanOrEqual(3);
    expectInOrder(purge, [
      '🧹 @alice is purging 200 URLs on static.example.com… 0/200',
      '🧹 @alice is purging 200 URLs on static.example.com…',
      '✅ @alice purged 200 URLs on static.example.com.',
    ]);
  });
});

describe('the console shows what Slack refuses at a response_url', () => {
  it('says so when an answer to a command is refused, then shows the bot’s fallback', async () => {
    const { transcript } = await pipe(
      ['/cdn login', 'sandbox-demo-key', '', 'submit', '/cdn zones'].join('\n'),
      (running) =>
        running.app.use(async ({ body, next }) => {
          // The command's response_url is spent before the bot answers on it.
          if ('command' in body && body.text === 'zones')
            running.slack.killResponseUrl(body.response_url, 'expired_url');
          await next();
        }),
    );
    const zones = transcript.slice(transcript.indexOf('alice in #ops › /cdn zones'));
    // In Slack nothing would appear from the refused post; the bot then answers another way.
    expectInOrder(zones, [
      '(Slack refused a response_url post: expired_url)',
      '── #ops · cdn · only you can see this',
      '9 zones · page 1 of 1',
    ]);
  });
});

describe('the console shows a watch alert as Slack does', () => {
  it('waits while Slack processes the chart, then shows the alert with it', async () => {
    const {
      printed,
      console: running,
      clock,
      outDir,
    } = await pipe(
      [
        '/cdn login',
        'sandbox-demo-key',
        '',
        'submit',
        '/cdn watch example.com',
        '/traffic example.com spike 10',
      ].join('\n'),
    );
    const { deps, slack } = running;
    const refused = () =>
      slack.callsTo('chat.postMessage').filter((c) => c.response.error === 'invalid_blocks');
    const alert = () => printed().indexOf('🚨 example.com · Requests spike');
    // Intervals pass until the spike fires; its post names a chart Slack has not processed yet.
    for (let i = 0; i < 30 && refused().length === 0 && alert() < 0; i++) {
      clock.advance(10_000);
      await deps.watchEvaluation.tick();
      await deps.runner.settled();
    }
    expect(refused()).toHaveLength(1);
    expect(alert()).toBe(-1);
    expect(printed()).toContain('(Slack refused chat.postMessage: invalid_blocks)');
    // Slack has processed the chart a second later: the same post is tried again and shown, once.
    clock.advance(2_000);
    await deps.runner.settled();
    const shown = printed().slice(alert());
    expect(printed().split('🚨 example.com · Requests spike')).toHaveLength(2);
    const image = /^\[image: [^\]]+\] (\S+\.png)$/m.exec(shown)?.[1];
    expect(image?.startsWith(outDir)).toBe(true);
    const png = await loadImage(await readFile(image as string));
    expect([png.width, png.height]).toEqual([1200, 640]);
    // The chart was uploaded once and shared nowhere else: not in a thread, not as a file.
    expect(slack.callsTo('files.completeUploadExternal')).toHaveLength(1);
    expect(printed()).not.toContain('cdn shared a file');
  });
});
