// The http(s) URLs a Slack message shows, wherever it shows them: its text, its blocks and its
// attachments.
import { AppError } from '../../errors.js';
import { httpUrlsIn, MAX_TEXT_LENGTH } from '../../text.js';

/** The most text read from one message, all its parts together (Slack caps `text` at 40,000). */
export const MAX_MESSAGE_TEXT = 10 * MAX_TEXT_LENGTH;
/** How deep blocks nest (a list in a quote in a rich_text block is 4); deeper is not read. */
const MAX_DEPTH = 12;

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const nodes = (value: unknown): Node[] => (Array.isArray(value) ? value.filter(isNode) : []);
const isHttpUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\/\S+$/i.test(value);

/** The URLs of a message's parts, in order: from Slack-formatted text (`<url|label>`), or bare. */
class Reading {
  readonly found = new Set<string>();
  length = 0;

  text(value: unknown): void {
    if (typeof value !== 'string' || value === '') return;
    this.length += value.length;
    // One text past Slack's own limit, or more text in all than a message can carry.
    const [length, max] =
      value.length > MAX_TEXT_LENGTH
        ? [value.length, MAX_TEXT_LENGTH]
        : [this.length, MAX_MESSAGE_TEXT];
    if (length > max) throw new AppError({ code: 'text_too_long', what: 'message', length, max });
    for (const url of httpUrlsIn(value)) this.found.add(url);
  }

  /** A text object (`{type: "mrkdwn" | "plain_text", text}`). */
  textObject(value: unknown): void {
    if (isNode(value)) this.text(value.text);
  }

  url(value: unknown): void {
    if (isHttpUrl(value)) this.found.add(value);
  }
}

/**
 * Block Kit blocks (https://docs.slack.dev/reference/block-kit/blocks): section text and fields,
 * header, context elements, the `url` of link buttons (accessory or actions), and rich_text
 * (https://docs.slack.dev/reference/block-kit/blocks/rich-text-block): sections, lists, quotes and
 * preformatted text, their `text` elements and the `url` of their `link` elements
 * (https://docs.slack.dev/reference/block-kit/block-elements/link-element).
 */
function readBlocks(reading: Reading, blocks: unknown, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const block of nodes(blocks)) {
    switch (block.type) {
      case 'section':
        reading.textObject(block.text);
        for (const field of nodes(block.fields)) reading.textObject(field);
        readElement(reading, block.accessory);
        break;
      case 'header':
        reading.textObject(block.text);
        break;
      case 'context':
        // Text objects and images; an image's URL is not part of what the message says.
        for (const element of nodes(block.elements)) {
          if (element.type === 'mrkdwn' || element.type === 'plain_text')
            reading.text(element.text);
        }
        break;
      case 'actions':
        for (const element of nodes(block.elements)) readElement(reading, element);
        break;
      case 'rich_text':
        readRichText(reading, block.elements, depth + 1);
        break;
    }
  }
}

/** A link button's URL (a section's accessory, an actions block's element). */
function readElement(reading: Reading, element: unknown): void {
  if (isNode(element) && element.type === 'button') reading.url(element.url);
}

function readRichText(reading: Reading, elements: unknown, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const element of nodes(elements)) {
    switch (element.type) {
      case 'rich_text_section':
      case 'rich_text_list':
      case 'rich_text_quote':
      case 'rich_text_preformatted':
        readRichText(reading, element.elements, depth + 1);
        break;
      case 'link':
        reading.url(element.url);
        break;
      case 'text':
        // Rich text is as typed, not Slack-formatted: only its bare URLs count.
        if (typeof element.text === 'string') reading.text(element.text.replace(/[<>]/g, ' '));
        break;
    }
  }
}

/**
 * Legacy attachments (https://docs.slack.dev/messaging/formatting-message-text#legacy-attachments;
 * fields as in MessageShortcutPayload.json above): pretext, title, title_link, text, fallback,
 * fields' values, and the blocks an attachment may carry.
 */
function readAttachments(reading: Reading, attachments: unknown, depth: number): void {
  for (const attachment of nodes(attachments)) {
    reading.text(attachment.pretext);
    reading.text(attachment.title);
    reading.url(attachment.title_link);
    reading.text(attachment.text);
    reading.text(attachment.fallback);
    for (const field of nodes(attachment.fields)) reading.text(field.value);
    readBlocks(reading, attachment.blocks, depth + 1);
  }
}

/**
 * Every http(s) URL the message shows, once each, in the order they come: text first, then blocks,
 * then attachments. Throws text_too_long past MAX_MESSAGE_TEXT characters in all. A message from
 * an integration (CI, deploys, monitoring) often carries everything in blocks, with "This content
 * can't be displayed." as its text, or in attachments: both as Slack hands them to a message
 * shortcut (slackapi/java-slack-sdk
 * json-logs/samples/app-backend/interactive-components/MessageShortcutPayload.json: `message`
 * with `text`, `blocks` and `attachments`; slackapi/java-slack-sdk
 * slack-api-client/src/test/java/util/socket_mode/MockSocketMode.java: a bot's message whose text
 * is "This content can't be displayed." and whose content is in `blocks`).
 */
export function urlsInMessage(message: unknown): string[] {
  const reading = new Reading();
  if (isNode(message)) {
    reading.text(message.text);
    readBlocks(reading, message.blocks, 0);
    readAttachments(reading, message.attachments, 0);
  }
  return [...reading.found];
}
