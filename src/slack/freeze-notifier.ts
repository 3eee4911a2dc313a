// FreezeNotifier over the Web API: announcements and exception requests are bot messages in the
// freeze's channel; an exception's message is updated in place as it is decided and used.
import { freezeAnnouncement, freezeExceptionMessage } from '../blocks/freezes.js';
import type { FreezeEvent, FreezeNotifier } from '../services/freezes/freezes.js';
import type { FreezeWindow } from '../services/freezes/windows.js';
import type { Freeze, FreezeException } from '../store/freezes.js';
import { asPostRefusal, isTransientSlackError } from './web-api-errors.js';
import type { WorkspaceClients } from './workspace-clients.js';

export class SlackFreezeNotifier implements FreezeNotifier {
  constructor(private readonly clients: WorkspaceClients) {}

  async announce(freeze: Freeze, event: FreezeEvent, window?: FreezeWindow): Promise<void> {
    const token = await this.clients.tokenFor(freeze.workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: freeze.channelId,
      ...freezeAnnouncement(freeze, event, window),
    });
  }

  async exceptionPosted(exception: FreezeException): Promise<string> {
    const token = await this.clients.tokenFor(exception.workspaceId);
    try {
      const result = await this.clients.client.chat.postMessage({
        token,
        channel: exception.channelId,
        ...freezeExceptionMessage(exception),
      });
      return result.ts ?? '';
    } catch (error) {
      throw asPostRefusal(error, 'approval');
    }
  }

  async exceptionChanged(exception: FreezeException): Promise<void> {
    if (!exception.messageTs) return;
    const token = await this.clients.tokenFor(exception.workspaceId);
    await this.clients.client.chat.update({
      token,
      channel: exception.channelId,
      ts: exception.messageTs,
      ...freezeExceptionMessage(exception),
    });
  }

  transient(error: unknown): boolean {
    return isTransientSlackError(error);
  }
}
