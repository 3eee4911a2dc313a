// The analytics form, from the App Home: which zone, which range, and where to post the chart.
import type { ModalView, PlainTextOption } from '@slack/types';
import { RANGES, type RangeKey } from '../services/analytics/analytics.js';
import { ANALYTICS_IDS } from './ids.js';
import { plain } from './text.js';
import { zonePicker } from './zones.js';

const rangeOption = (range: RangeKey): PlainTextOption => ({
  text: plain(`Last ${range}`),
  value: range,
});

export function analyticsModal(): ModalView {
  return {
    type: 'modal',
    callback_id: ANALYTICS_IDS.callback,
    title: plain('Traffic analytics'),
    submit: plain('Post the chart'),
    close: plain('Cancel'),
    blocks: [
      {
        type: 'input',
        block_id: ANALYTICS_IDS.zoneBlock,
        label: plain('Zone'),
        element: zonePicker(),
      },
      {
        type: 'input',
        block_id: ANALYTICS_IDS.rangeBlock,
        label: plain('Range'),
        element: {
          type: 'static_select',
          action_id: ANALYTICS_IDS.rangeInput,
          options: (Object.keys(RANGES) as RangeKey[]).map(rangeOption),
          initial_option: rangeOption('24h'),
        },
      },
      {
        type: 'input',
        block_id: ANALYTICS_IDS.channelBlock,
        label: plain('Post in'),
        hint: plain('I must be a member of the channel: /invite @cdn'),
        element: {
          type: 'conversations_select',
          action_id: ANALYTICS_IDS.channelInput,
          filter: { include: ['public', 'private', 'im'] },
        },
      },
    ],
  };
}
