// app_uninstalled and tokens_revoked: Bolt delivers both without authorizing (the tokens are
// gone), and the workspace's secrets and pending work are torn down.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from '@slack/bolt';
import type { AppDeps } from '../../deps.js';
import type { RevokedWorkspace } from '../../services/workspace/uninstall.js';
import { callerOf } from '../context.js';

type Body = { team_id?: string; enterprise_id?: string; is_enterprise_install?: boolean };

function workspaceIn(body: Body, context: AllMiddlewareArgs['context']): RevokedWorkspace {
  return {
    teamId: callerOf(context).workspaceId,
    enterpriseId: context.enterpriseId ?? body.enterprise_id,
    isEnterpriseInstall: context.isEnterpriseInstall ?? body.is_enterprise_install,
  };
}

export function appUninstalled(deps: AppDeps) {
  return async ({
    body,
    context,
  }: SlackEventMiddlewareArgs<'app_uninstalled'> & AllMiddlewareArgs) => {
    await deps.uninstall.revoke(workspaceIn(body as Body, context), 'app_uninstalled');
  };
}

export function tokensRevoked(deps: AppDeps) {
  return async ({
    event,
    body,
    context,
  }: SlackEventMiddlewareArgs<'tokens_revoked'> & AllMiddlewareArgs) => {
    // Only the bot token matters: the app asks for no user tokens.
    if ((event.tokens.bot ?? []).length === 0) return;
    await deps.uninstall.revoke(workspaceIn(body as Body, context), 'tokens_revoked');
  };
}
