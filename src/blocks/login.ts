// The API-key modal and what follows its submission.
import type { ModalView } from '@slack/types';
import { LOGIN_IDS } from './ids.js';
import { type Message, message } from './message.js';
import { code, md, mrkdwn, plain } from './text.js';

export function loginModal(options: {
  defaultBaseUrl: string;
  currentBaseUrl: string | null;
  hasKey: boolean;
  metadata: string;
  /**
   * Shown above the form when a previous attempt failed after the modal was acknowledged: plain
   * text, as a modal's inline errors are.
   */
  problem?: string;
}): ModalView {
  return {
    type: 'modal',
    callback_id: LOGIN_IDS.callback,
    title: plain('CDN API key'),
    submit: plain('Check and save'),
    close: plain('Cancel'),
    private_metadata: options.metadata,
    blocks: [
      ...(options.problem
        ? [{ type: 'section' as const, text: mrkdwn(md`:warning: ${options.problem}`) }]
        : []),
      {
        type: 'section',
        text: mrkdwn(
          md`${options.hasKey ? 'A key is set; saving replaces it. ' : ''}Paste an API key generated in the CDN dashboard. It is checked against the CDN, stored encrypted, and never shown again, here or anywhere.`,
        ),
      },
      {
        type: 'input',
        block_id: LOGIN_IDS.keyBlock,
        label: plain('API key'),
        element: {
          type: 'plain_text_input',
          action_id: LOGIN_IDS.keyInput,
          placeholder: plain('Paste the key'),
          max_length: 512,
        },
      },
      {
        type: 'input',
        block_id: LOGIN_IDS.baseUrlBlock,
        optional: true,
        label: plain('API base URL (optional)'),
        hint: plain(
          `Leave empty to use ${options.defaultBaseUrl}. Must be an https URL ending with /v1, on a public address.`,
          2000,
        ),
        element: {
          type: 'url_text_input',
          action_id: LOGIN_IDS.baseUrlInput,
          ...(options.currentBaseUrl ? { initial_value: options.currentBaseUrl } : {}),
        },
      },
    ],
  };
}

export function loginCheckingView(): ModalView {
  return {
    type: 'modal',
    callback_id: LOGIN_IDS.callback,
    title: plain('CDN API key'),
    close: plain('Close'),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`:hourglass_flowing_sand: Checking the key… Slack, DNS or the CDN is slow to answer. This view updates when the checks end.`,
        ),
      },
    ],
  };
}

export function loginDoneView(options: { zoneCount: number; baseUrl: string }): ModalView {
  return {
    type: 'modal',
    callback_id: LOGIN_IDS.callback,
    title: plain('CDN API key'),
    close: plain('Done'),
    blocks: [
      {
        type: 'section',
        text: mrkdwn(
          md`:white_check_mark: Key saved. It works: the CDN at ${code(options.baseUrl)} shows ${options.zoneCount} zone${options.zoneCount === 1 ? '' : 's'} to it.`,
        ),
      },
    ],
  };
}

export function loginConfirmation(zoneCount: number): Message {
  const text = md`:white_check_mark: The CDN API key is saved (encrypted) and works: ${zoneCount} zone${zoneCount === 1 ? '' : 's'} visible. Try \`/cdn zones\`.`;
  return message(text, [{ type: 'section', text: mrkdwn(text) }]);
}

/**
 * The inline answer when the CDN refused the key (plain text: modal errors are not mrkdwn): "The
 * CDN at api.cdn.example refused this key (401): Invalid API key".
 */
export function keyRefusedText(refusal: { host: string; status: number; said: string }): string {
  return `The CDN at ${refusal.host} refused this key (${refusal.status}): ${refusal.said}`;
}

/** The inline answer when the key could not be checked at all (the CDN down, a timeout). */
export function keyUncheckedText(explained: string): string {
  return `Couldn't check the key: ${explained}`;
}
