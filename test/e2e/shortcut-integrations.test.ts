// "Purge URLs in this message" on messages from integrations (CI, deploys, monitoring), which say
// everything in blocks (their text "This content can't be displayed.") or in attachments: the
// purge form opens prefilled with their URLs.
import { describe, expect, it } from 'vitest';
import { PURGE_IDS } from '../../src/blocks/ids.js';
import { CHANNEL, type Harness, startHarness } from './harness.js';

/** The URLs the purge form opened with, one a line. */
async function prefilled(h: Harness): Promise<unknown> {
  const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
  expect(opened?.response.ok).toBe(true);
  const view = opened?.args.view as {
    blocks: Array<{ block_id: string; element: Record<string, unknown> }>;
  };
  return view.blocks.find((b) => b.block_id === PURGE_IDS.itemsBlock)?.element.initial_value;
}

describe('the message shortcut on an integration’s message', () => {
  it('finds the URLs of a message that has only blocks', async () => {
    const h = await startHarness({ login: true });
    await h.shortcut(PURGE_IDS.shortcut, {
      channel: CHANNEL,
      ts: '1795000000.000200',
      text: '',
      botId: 'BDEPLOY',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Deploy finished' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'Changed <https://static.example.com/app.css|app.css>' },
        },
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_list',
              style: 'bullet',
              elements: [
                {
                  type: 'rich_text_section',
                  elements: [{ type: 'link', url: 'https://static.example.com/app.js' }],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(await prefilled(h)).toBe(
      'https://static.example.com/app.css\nhttps://static.example.com/app.js',
    );
  });

  it('finds the URLs of a message that has only attachments', async () => {
    const h = await startHarness({ login: true });
    await h.shortcut(PURGE_IDS.shortcut, {
      channel: CHANNEL,
      ts: '1795000000.000300',
      text: '',
      botId: 'BMONITOR',
      attachments: [
        {
          fallback: 'Stale asset: https://static.example.com/logo.svg',
          color: 'danger',
          title: 'Stale asset',
          title_link: 'https://static.example.com/logo.svg',
          fields: [
            { title: 'Also', value: '<https://static.example.com/font.woff2>', short: true },
          ],
        },
      ],
    });
    expect(await prefilled(h)).toBe(
      'https://static.example.com/logo.svg\nhttps://static.example.com/font.woff2',
    );
  });
});
