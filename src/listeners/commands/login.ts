// /cdn login: admins open the private API-key form. The key is never typed in a channel.
import { loginModal } from '../../blocks/login.js';
import { accessFor, encodeOrigin, type SubcommandHandler } from './context.js';

export const login: SubcommandHandler = async (context) => {
  const { deps, workspaceId, command, client } = context;
  await accessFor(context).requireAdmin(command.user_id, 'set the CDN API key');
  const workspace = await deps.store.workspaces.ensure(workspaceId);
  await client.views.open({
    trigger_id: command.trigger_id,
    view: loginModal({
      defaultBaseUrl: deps.defaultBaseUrl,
      currentBaseUrl: workspace.cdnBaseUrl,
      hasKey: (await deps.store.credentials.status(workspaceId)) !== undefined,
      metadata: encodeOrigin({ channelId: command.channel_id, responseUrl: command.response_url }),
    }),
  });
};
