import { describe, expect, it } from 'vitest';
import { approvalMessage } from '../../../src/blocks/approval.js';
import { helpMessage } from '../../../src/blocks/help.js';
import { zonesMessage } from '../../../src/blocks/zones.js';
import { mrkdwnToText, renderBlocks } from '../../../src/dev/console/render.js';
import { HELP_ENTRIES } from '../../../src/listeners/commands/registry.js';
import type { Approval } from '../../../src/store/approvals.js';

describe('mrkdwnToText', () => {
  it('makes links, mentions, dates and entities readable', () => {
    const users = new Map([['U1', 'alice']]);
    const channels = new Map([['C1', 'ops']]);
    expect(
      mrkdwnToText(
        '<@U1> in <#C1> and <#C2|reports>: see <https://example.com/a|the doc> or <https://example.com/b>, at <!date^1795000000^{time}|09:00 UTC>; &lt;b&gt; &amp; <!here> <!subteam^S1|@sre>',
        { users, channels },
      ),
    ).toBe(
      '@alice in #ops and #reports: see the doc (https://example.com/a) or https://example.com/b, at 09:00 UTC; <b> & @here @sre',
    );
  });
});

describe('mrkdwn styles', () => {
  it('drops bold and italic markers, keeps code, indents code blocks, shows emoji and quotes', () => {
    expect(
      mrkdwnToText(
        ':white_check_mark: *Done* on _shop.example_ (`zone_1`), not snake_case_name or 2*3*4:\n```a.  CNAME  b.```\n>quoted &gt; not',
      ),
    ).toBe(
      '✅ Done on shop.example (`zone_1`), not snake_case_name or 2*3*4:\n\n    a.  CNAME  b.\n\n▍ quoted > not',
    );
    expect(mrkdwnToText(':no_such_emoji: stays')).toBe(':no_such_emoji: stays');
  });
});

describe('renderBlocks', () => {
  it('renders a zone list with numbered buttons', () => {
    let next = 0;
    const pressed: string[] = [];
    const text = renderBlocks(
      zonesMessage({
        zones: [
          {
            id: 'zone_1',
            name: 'example.com',
            status: 'active',
            createdAt: '2026-01-05T10:00:00Z',
          },
        ],
        page: 1,
        perPage: 10,
        total: 11,
        pages: 2,
      }).blocks,
      undefined,
      {
        numberButton: (b) => {
          pressed.push(b.actionId);
          return ++next;
        },
      },
    );
    expect(text).toContain('Zones\n═════');
    expect(text).toContain('example.com  🟢 active');
    expect(text).toContain('[1] Analytics');
    expect(text).toContain('[2] Next ▶');
    expect(pressed).toEqual(['zones_analytics_0', 'zones_next']);
  });

  it('renders an approval request with its three buttons, escapes made readable', () => {
    const approval: Approval = {
      id: 'a1',
      workspaceId: 'T1',
      accountId: 'acc_1',
      zoneId: 'z',
      zoneName: 'example.com',
      requesterId: 'U1',
      reason: 'bad <deploy>',
      channelId: 'C1',
      messageTs: null,
      status: 'pending',
      decidedBy: null,
      decidedAt: null,
      decisionNote: null,
      outcome: null,
      purgeId: null,
      outcomeDetail: null,
      expiresAt: 1_795_000_000_000,
      createdAt: 0,
      updatedAt: 0,
    };
    let n = 0;
    const text = renderBlocks(approvalMessage(approval, { cacheHitRate: 0.9 }).blocks, undefined, {
      users: new Map([['U1', 'bob']]),
      numberButton: () => ++n,
    });
    expect(text).toContain('@bob asked to purge everything on example.com:\n▍ bad <deploy>');
    expect(text).toContain('[1] Approve…  [2] Deny…  [3] Cancel request');
    expect(text).toContain('  │ Cache hit rate over the last 24 h: 90.0 %');
  });

  it('falls back to the text when there are no blocks', () => {
    expect(renderBlocks(undefined, 'plain &amp; simple')).toBe('plain & simple');
    expect(renderBlocks([], 'x')).toBe('x');
    expect(renderBlocks(helpMessage(HELP_ENTRIES).blocks, undefined)).toContain(
      '/cdn zones [active|pending|deleted] [name] [page N]',
    );
  });
});
