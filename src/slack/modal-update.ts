// Updating a modal after slow work, when the person may have closed it meanwhile: Slack then
// answers `not_found` (isClosedView), and the work is not undone by that. The caller learns the
// modal is gone and tells the person another way.
import type { ViewsUpdateArguments, WebClient } from '@slack/web-api';
import { isClosedView } from './web-api-errors.js';

/** views.update; 'closed' when the person had closed the modal, any other refusal thrown. */
export async function updateModal(
  client: WebClient,
  args: ViewsUpdateArguments,
): Promise<'shown' | 'closed'> {
  try {
    await client.views.update(args);
    return 'shown';
  } catch (error) {
    if (isClosedView(error)) return 'closed';
    throw error;
  }
}
