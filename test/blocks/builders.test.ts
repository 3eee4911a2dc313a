import { describe, expect, it } from 'vitest';
import { analyticsModal } from '../../src/blocks/analytics-modal.js';
import {
  channelBoundMessage,
  channelDefaultMessage,
  channelUnboundMessage,
} from '../../src/blocks/channels.js';
import { configMessage } from '../../src/blocks/config.js';
import { cnameRecord, createModal, zoneCreatedMessage } from '../../src/blocks/create.js';
import { errorMessage, noticeModal } from '../../src/blocks/errors.js';
import { helpMessage, unknownSubcommandMessage } from '../../src/blocks/help.js';
import { homeView } from '../../src/blocks/home.js';
import { loginCheckingView, loginDoneView, loginModal } from '../../src/blocks/login.js';
import { rateLimitMessage } from '../../src/blocks/ratelimit.js';
import { md } from '../../src/blocks/text.js';
import { zonesMessage } from '../../src/blocks/zones.js';
import { CDN_ERROR_CODES, CdnError } from '../../src/cdn/errors.js';
import type { Zone } from '../../src/cdn/schemas.js';
import { validateBlocks, validateView } from '../../src/dev/fake-slack/validate.js';
import { AppError } from '../../src/errors.js';
import { HELP_ENTRIES } from '../../src/listeners/commands/registry.js';
import type { AuditEntry } from '../../src/store/audit-log.js';
import type { Schedule } from '../../src/store/schedules.js';
import type { Workspace } from '../../src/store/workspaces.js';
import { DEFAULT_LIMITS } from '../../src/store/workspaces.js';

const HOSTILE = '<!channel> <@U123> <http://evil.example|innocent> & `tick`';
const longName = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;
/** The CDN account every record here is of. */
const ACCOUNT = 'acc_1';
const zone = (name: string, i = 0): Zone => ({
  id: `zone_${String(i).padStart(24, '0')}`,
  accountId: ACCOUNT,
  name,
  status: ['active', 'pending', 'deleted', 'moved'][i % 4] ?? 'active',
  createdAt: i % 5 === 4 ? 'not a date' : '2026-01-05T10:00:00Z',
});

describe('Block Kit builders stay within Slack limits', () => {
  it('zones: a full page of the longest names, every status, first/middle/last pages', () => {
    const zones = Array.from({ length: 10 }, (_, i) => zone(longName, i));
    for (const page of [1, 7, 25]) {
      const message = zonesMessage(
        { zones, page, perPage: 10, total: 250, pages: 25 },
        {
          status: 'active',
        },
      );
      expect(validateBlocks(message.blocks, 'message')).toEqual([]);
      expect(message.blocks.length).toBeLessThanOrEqual(50);
      expect(message.text.length).toBeLessThanOrEqual(3000);
    }
    const empty = zonesMessage({ zones: [], page: 1, perPage: 10, total: 0, pages: 1 });
    expect(validateBlocks(empty.blocks, 'message')).toEqual([]);
    expect(empty.text).toBe('No zones yet.');
  });

  it('modals: titles within 24 characters, inputs with submit buttons', () => {
    const views = [
      createModal('{}'),
      loginModal({
        defaultBaseUrl: 'https://api.cdn.example/v1',
        currentBaseUrl: null,
        hasKey: true,
        metadata: '{}',
        problem: HOSTILE,
      }),
      loginCheckingView(),
      loginDoneView({ zoneCount: 3, baseUrl: 'https://api.cdn.example/v1' }),
      noticeModal('A title far longer than Slack allows', 'text'),
      analyticsModal(),
    ];
    for (const view of views) expect(validateView(view)).toEqual([]);
  });

  it('home: many activities and schedules, hostile names', () => {
    const recent: AuditEntry[] = Array.from({ length: 30 }, (_, i) => ({
      id: i,
      workspaceId: 'T1',
      actorId: 'U1',
      action: 'purge.files',
      zoneId: 'z',
      zoneName: HOSTILE,
      outcome: 'ok',
      detail: null,
      at: 1_790_000_000_000 + i,
    }));
    const schedules: Schedule[] = Array.from({ length: 40 }, (_, i) => ({
      id: `s${i}`,
      workspaceId: 'T1',
      accountId: ACCOUNT,
      zoneId: 'z',
      zoneName: longName,
      channelId: 'C1',
      createdBy: 'U1',
      timeOfDay: '09:00',
      timeZone: 'Europe/Paris',
      status: i % 2 ? 'paused' : 'active',
      nextRunAt: 0,
      lastRunAt: null,
      pausedReason: HOSTILE,
      createdAt: 0,
      updatedAt: 0,
    }));
    const key = { workspaceId: 'T1', setBy: 'U1', setAt: 1, lastValidatedAt: 2 };
    const full = {
      permissions: { readZones: true, readRecords: true, setKey: true, operate: true },
      keySet: true,
      key,
      baseUrl: 'https://api.cdn.example/v1',
      recent,
      schedules: { shown: schedules, hidden: 3 },
      commands: HELP_ENTRIES,
    };
    for (const view of [
      homeView(full),
      homeView({
        ...full,
        channels: {
          bindings: Array.from({ length: 60 }, (_, i) => ({
            workspaceId: 'T1',
            channelId: `C${String(i).padStart(10, '0')}`,
            zoneId: 'z',
            zoneName: i % 2 ? longName : HOSTILE,
            accountId: ACCOUNT,
            generation: 'g',
            setBy: 'U1',
            setAt: 0,
          })),
          purgeChannels: Array.from({ length: 100 }, (_, i) => `C${String(i).padStart(10, '0')}`),
        },
      }),
      homeView({
        permissions: { readZones: true, readRecords: true, setKey: true, operate: true },
        keySet: false,
        baseUrl: 'https://api.cdn.example/v1',
        recent: [],
        schedules: { shown: [], hidden: 0 },
        commands: HELP_ENTRIES,
        retention: { auditDays: 36_500, uninstalledDays: 3_650 },
      }),
      homeView({
        permissions: { readZones: false, readRecords: false, setKey: false, operate: false },
        keySet: true,
        recent: [],
        schedules: { shown: [], hidden: 0 },
        commands: HELP_ENTRIES,
      }),
    ]) {
      expect(validateView(view)).toEqual([]);
      expect(JSON.stringify(view)).not.toContain('<!channel>');
    }
  });

  it('help, create, rate limit, config and every error are valid messages', () => {
    const workspace: Workspace = {
      id: 'T1',
      enterpriseId: null,
      operatorGroupId: 'S1',
      approverGroupId: null,
      approvalTtlMinutes: 30,
      guestAccess: 'read',
      reportTimeOfDay: '09:00',
      limits: { ...DEFAULT_LIMITS },
      createdAt: 0,
      updatedAt: 0,
    };
    const messages = [
      helpMessage(HELP_ENTRIES),
      helpMessage(HELP_ENTRIES, { unknown: HOSTILE }),
      unknownSubcommandMessage(HOSTILE, 'zones'),
      zoneCreatedMessage(
        { kind: 'created', zone: zone(longName), confirmedBy: 'response', name: longName },
        { plan: 'pro', actorId: 'U1', cnameTarget: 'edge.cdn.example' },
      ),
      zoneCreatedMessage(
        { kind: 'accepted', name: 'example.com' },
        { plan: 'free', actorId: 'U1', cnameTarget: 'edge.cdn.example' },
      ),
      rateLimitMessage({ zone: zone(HOSTILE), enabled: true, actorId: 'U1' }),
      rateLimitMessage({
        zone: zone(HOSTILE),
        enabled: false,
        actorId: 'U1',
        propagatedAt: 1_790_000_000_000,
      }),
      configMessage(workspace),
      configMessage(workspace, 'Operators updated.'),
      configMessage(workspace, undefined, { purgeChannels: [] }),
      configMessage(workspace, 'Purges are now limited to the channels below.', {
        purgeChannels: Array.from({ length: 100 }, (_, i) => `C${i}`),
      }),
      channelDefaultMessage({ kind: 'none' }),
      channelDefaultMessage({ kind: 'stale', zoneName: longName }),
      channelDefaultMessage({ kind: 'stale', zoneName: longName, account: HOSTILE }),
      channelBoundMessage(zone(longName), 'U1'),
      channelUnboundMessage('U1'),
      ...CDN_ERROR_CODES.map((code) =>
        errorMessage(new CdnError(code, HOSTILE, { requestId: 'r1', retryAfterMs: 5_000 })),
      ),
      errorMessage(new AppError({ code: 'zone_not_found', query: 'x', suggestions: [] })),
      errorMessage(new Error('boom')),
    ];
    for (const message of messages) {
      expect(validateBlocks(message.blocks, 'message')).toEqual([]);
      expect(message.text.length).toBeGreaterThan(0);
    }
    // A CDN error message is the server's words, escaped: no mention, no disguised link.
    const rendered = JSON.stringify(messages.slice(14));
    expect(rendered).not.toContain('<!channel>');
    expect(rendered).not.toContain('<http://evil');
    expect(errorMessage(new Error('secret internals')).text).not.toContain('secret internals');
  });
});

describe('the CNAME record', () => {
  it('is a zone-file line with trailing dots', () => {
    expect(cnameRecord('shop.example.com', 'edge.cdn.example')).toBe(
      'shop.example.com.  CNAME  edge.cdn.example.',
    );
  });

  it('comes with an apex hint only for apex-looking names', () => {
    const apex = zoneCreatedMessage(
      { kind: 'accepted', name: 'example.com' },
      { plan: 'free', actorId: 'U1', cnameTarget: 'e.x' },
    );
    const sub = zoneCreatedMessage(
      { kind: 'accepted', name: 'www.example.com' },
      { plan: 'free', actorId: 'U1', cnameTarget: 'e.x' },
    );
    expect(JSON.stringify(apex.blocks)).toContain('CNAME flattening');
    expect(JSON.stringify(sub.blocks)).not.toContain('CNAME flattening');
  });
});

describe('md``', () => {
  it('neutralizes mentions and links', () => {
    expect(md`${HOSTILE}`.text).toBe(
      '&lt;!channel&gt; &lt;@U123&gt; &lt;http://evil.example|innocent&gt; &amp; `tick`',
    );
  });
});

describe('the App Home retention line', () => {
  const home = (retention: { auditDays: number; uninstalledDays: number }) =>
    JSON.stringify(
      homeView({
        permissions: { readZones: false, readRecords: false, setKey: false, operate: false },
        keySet: false,
        recent: [],
        schedules: { shown: [], hidden: 0 },
        commands: HELP_ENTRIES,
        retention,
      }).blocks.at(-1),
    );

  it('says the audit retention and the uninstall grace in one line, and "until uninstalled" for 0', () => {
    expect(home({ auditDays: 365, uninstalledDays: 1 })).toContain(
      ":lock: Activity history is kept 365 days. If the app is uninstalled, its keys are deleted at once and the rest of this workspace's data 1 day later.",
    );
    expect(home({ auditDays: 0, uninstalledDays: 30 })).toContain(
      'Activity history is kept until the app is uninstalled.',
    );
  });
});
