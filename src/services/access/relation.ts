// Who a person is to a workspace, from what Slack says of them: its own member, a colleague (of
// another workspace of the same Enterprise Grid organization), an outsider (of another
// organization: Slack Connect), or not yet known. The one definition every entry point uses.

/** A workspace: its id, and its Grid organization's when it is in one. */
export interface WorkspaceIdentity {
  teamId: string;
  enterpriseId?: string | undefined;
}

/**
 * What is said of a person: their own team, and their Grid organization. `enterpriseId` is `null`
 * when the source says they have none (users.info without `enterprise_user`), `undefined` when it
 * does not say (an interaction payload names only `user.team_id`).
 */
export interface Affiliation {
  teamId?: string | undefined;
  enterpriseId?: string | null | undefined;
}

export type Relation = 'member' | 'colleague' | 'outsider' | 'unknown';

/**
 * The person's relation to the workspace. A team id that is the workspace's own is a member; one
 * that is the workspace's organization (Slack names a Grid user's team by the org's id, as the
 * `user_team: "E013Y3SHLAY"` of slackapi/bolt-python tests/slack_bolt/request/test_internals.py
 * shows), or an `enterprise_user.enterprise_id` that is the workspace's organization
 * (slackapi/java-slack-sdk json-logs/samples/api/users.info.json), is a colleague. Another team is
 * an outsider, except on Grid when nothing says which organization that team is in: unknown.
 */
export function relationOf(person: Affiliation, workspace: WorkspaceIdentity): Relation {
  const { teamId, enterpriseId } = person;
  if (teamId === undefined || teamId === '') return 'unknown';
  if (teamId === workspace.teamId) return 'member';
  const org = workspace.enterpriseId || undefined;
  if (org !== undefined && (teamId === org || enterpriseId === org)) return 'colleague';
  if (org !== undefined && enterpriseId === undefined) return 'unknown';
  return 'outsider';
}

/**
 * How an outsider is named: `organization` when Grid is on either side (another organization,
 * through Slack Connect; "another workspace" would not tell it from a colleague's), else
 * `external` (a workspace of its own sharing the channel).
 */
export function outsiderKind(
  person: Affiliation,
  workspace: WorkspaceIdentity,
): 'external' | 'organization' {
  return workspace.enterpriseId || person.enterpriseId ? 'organization' : 'external';
}
