// /cdn login: admins open the private API-key form. The key is never typed in a channel.
import { loginModal } from '../../blocks/login.js';
import { commandOrigin, encodeOrigin, type SubcommandHandler } from './context.js';

export const login: SubcommandHandler = async ({ deps, caller, command, client }) => {
  const form = await deps.config.keyForm(caller);
  await client.views.open({
    trigger_id: command.trigger_id,
    view: loginModal({ ...form, metadata: encodeOrigin(commandOrigin(command)) }),
  });
};
