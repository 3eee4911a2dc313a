// The URLs a message shows, read from the shapes Slack records for a message shortcut's message:
// text, blocks (section, header, context, actions, rich_text) and legacy attachments.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { MAX_MESSAGE_TEXT, urlsInMessage } from '../../../src/services/purge/message-urls.js';
import { MAX_TEXT_LENGTH } from '../../../src/text.js';

describe('urlsInMessage', () => {
  it('reads a bot message whose text says nothing and whose blocks say it all', () => {
    // slackapi/java-slack-sdk slack-api-client/src/test/java/util/socket_mode/MockSocketMode.java:
    // a bot's message, "This content can't be displayed." as text, its content in `blocks`.
    const message = {
      bot_id: 'B111',
      type: 'message',
      text: "This content can't be displayed.",
      user: 'U222',
      ts: '1605853634.000400',
      team: 'T111',
      blocks: [
        {
          type: 'section',
          block_id: 'b',
          text: {
            type: 'mrkdwn',
            text: 'Deploy of <https://cdn.example.com/app.js|app.js> done',
            verbatim: false,
          },
        },
        {
          type: 'actions',
          block_id: 'b2',
          elements: [
            {
              type: 'button',
              action_id: 'a',
              text: { type: 'plain_text', text: 'Open', emoji: true },
              url: 'https://cdn.example.com/index.html',
              value: 'underlying',
            },
          ],
        },
      ],
    };
    expect(urlsInMessage(message)).toEqual([
      'https://cdn.example.com/app.js',
      'https://cdn.example.com/index.html',
    ]);
  });

  it('reads every part of the message shortcut sample: section text, fields, header, context, attachments', () => {
    // The shape of slackapi/java-slack-sdk
    // json-logs/samples/app-backend/interactive-components/MessageShortcutPayload.json's `message`,
    // with values of ours.
    const message = {
      type: 'message',
      text: '',
      blocks: [
        {
          type: 'header',
          text: { type: 'plain_text', text: 'https://a.example/h.css', emoji: false },
        },
        {
          type: 'context',
          elements: [
            { type: 'image', image_url: 'https://a.example/logo.png', alt_text: 'logo' },
            { type: 'mrkdwn', text: 'build <https://ci.example/run/42|#42>' },
          ],
          block_id: '',
        },
        { type: 'divider', block_id: '' },
        {
          type: 'image',
          image_url: 'https://a.example/chart.png',
          alt_text: 'chart',
          block_id: '',
        },
        {
          type: 'section',
          text: { type: 'plain_text', text: 'changed https://a.example/s.css', emoji: false },
          block_id: '',
          fields: [
            { type: 'plain_text', text: 'https://a.example/f1.js', emoji: false },
            { type: 'mrkdwn', text: '<https://a.example/f2.js>', verbatim: false },
          ],
          accessory: { type: 'image', image_url: 'https://a.example/thumb.png', alt_text: '' },
        },
      ],
      attachments: [
        {
          fallback: 'fallback https://a.example/fallback.css',
          color: 'good',
          pretext: 'pretext <https://a.example/pretext.css>',
          title: 'Deploy',
          title_link: 'https://a.example/title',
          text: 'text <https://a.example/text.css|text.css>',
          fields: [{ title: 'Files', value: '<https://a.example/field.css>', short: false }],
          image_url: 'https://a.example/attachment.png',
          footer: 'CI',
          ts: '1700000000',
          blocks: [
            {
              type: 'section',
              text: { type: 'mrkdwn', text: '<https://a.example/in-attachment.css>' },
            },
          ],
        },
      ],
    };
    expect(urlsInMessage(message)).toEqual([
      'https://a.example/h.css',
      'https://ci.example/run/42',
      'https://a.example/s.css',
      'https://a.example/f1.js',
      'https://a.example/f2.js',
      'https://a.example/pretext.css',
      'https://a.example/title',
      'https://a.example/text.css',
      'https://a.example/fallback.css',
      'https://a.example/field.css',
      'https://a.example/in-attachment.css',
    ]);
  });

  it('reads rich text: link elements, bare URLs in text, and nested lists and quotes', () => {
    // https://docs.slack.dev/reference/block-kit/block-elements/link-element (a link element
    // without text), rich-text-section-element; lists and quotes hold sections.
    const message = {
      type: 'message',
      text: 'see the list',
      blocks: [
        {
          type: 'rich_text',
          block_id: 'K8xp',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'text', text: 'purge ' },
                { type: 'link', url: 'https://docs.example/a.css' },
                { type: 'text', text: ' and https://docs.example/b.css please' },
              ],
            },
            {
              type: 'rich_text_list',
              style: 'bullet',
              indent: 0,
              elements: [
                {
                  type: 'rich_text_section',
                  elements: [
                    { type: 'link', url: 'https://docs.example/c.css', text: 'c' },
                    { type: 'link', url: 'mailto:ops@example.com', text: 'mail' },
                  ],
                },
              ],
            },
            {
              type: 'rich_text_quote',
              elements: [
                {
                  type: 'rich_text_section',
                  elements: [{ type: 'link', url: 'https://docs.example/d.css' }],
                },
              ],
            },
            {
              type: 'rich_text_preformatted',
              elements: [{ type: 'text', text: 'curl <https://docs.example/e.css>' }],
            },
          ],
        },
      ],
    };
    expect(urlsInMessage(message)).toEqual([
      'https://docs.example/a.css',
      'https://docs.example/b.css',
      'https://docs.example/c.css',
      'https://docs.example/d.css',
      'https://docs.example/e.css',
    ]);
  });

  it('gives each URL once, text first', () => {
    const message = {
      text: '<https://a.example/x.css>',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '<https://a.example/x.css>' } }],
      attachments: [{ fallback: 'https://a.example/x.css' }],
    };
    expect(urlsInMessage(message)).toEqual(['https://a.example/x.css']);
  });

  it('reads nothing from what is not a message, and ignores unknown blocks and odd values', () => {
    expect(urlsInMessage(undefined)).toEqual([]);
    expect(urlsInMessage('https://a.example/')).toEqual([]);
    expect(
      urlsInMessage({
        blocks: [
          null,
          3,
          { type: 'video', video_url: 'https://a.example/v.mp4' },
          { type: 'section' },
        ],
        attachments: 'https://a.example/',
      }),
    ).toEqual([]);
  });

  it('refuses a text past Slack’s limit, and a message past its total, in one problem', () => {
    const long = { text: 'x'.repeat(MAX_TEXT_LENGTH + 1) };
    expect(() => urlsInMessage(long)).toThrow(AppError);
    const many = {
      attachments: Array.from({ length: 11 }, () => ({ text: 'y'.repeat(MAX_TEXT_LENGTH) })),
    };
    try {
      urlsInMessage(many);
      expect.unreachable();
    } catch (error) {
      expect((error as AppError).problem).toMatchObject({
        code: 'text_too_long',
        max: MAX_MESSAGE_TEXT,
      });
    }
  });

  it('stops reading blocks nested deeper than any Slack sends', () => {
    let nested: Record<string, unknown> = {
      type: 'rich_text_section',
      elements: [{ type: 'link', url: 'https://deep.example/' }],
    };
    for (let i = 0; i < 50; i++) nested = { type: 'rich_text_quote', elements: [nested] };
    expect(urlsInMessage({ blocks: [{ type: 'rich_text', elements: [nested] }] })).toEqual([]);
  });
});
