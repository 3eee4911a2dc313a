// /cdn audit [zone]: the last 20 changes made from Slack.
import { auditMessage } from '../../blocks/audit.js';
import type { SubcommandHandler } from './context.js';

export const audit: SubcommandHandler = async ({ args, deps, caller, respond }) => {
  const zone = args[0];
  const entries = await deps.activity.recent(caller, {
    limit: 20,
    ...(zone ? { zone } : {}),
  });
  await respond(auditMessage(entries, zone));
};
