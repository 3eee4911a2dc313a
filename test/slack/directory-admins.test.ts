// Who administers where a request's data lives, from users.info (the fields of slackapi/java-slack-sdk
// json-logs/samples/api/users.info.json): a workspace's admins their workspace, a Grid
// organization's admins and owners anything of it; an org-wide install's data only the latter.
import { describe, expect, it } from 'vitest';
import { administers } from '../../src/slack/directory.js';

const orgAdmin = { team_id: 'T0HQ', enterprise_user: { enterprise_id: 'E0ACME', is_admin: true } };
const orgOwner = { team_id: 'T0HQ', enterprise_user: { enterprise_id: 'E0ACME', is_owner: true } };
const workspaceAdmin = {
  team_id: 'T0OPS',
  is_admin: true,
  enterprise_user: { enterprise_id: 'E0ACME', is_admin: false },
};

describe('administers', () => {
  it('a workspace’s admin, its workspace; an organization’s admin or owner, its workspaces too', () => {
    expect(administers(workspaceAdmin, 'T0OPS', 'E0ACME')).toBe(true);
    expect(administers(orgAdmin, 'T0OPS', 'E0ACME')).toBe(true);
    expect(administers(orgOwner, 'T0OPS', 'E0ACME')).toBe(true);
  });

  it('an org-wide install’s data (keyed by the organization): its admins and owners only', () => {
    expect(administers(orgAdmin, 'E0ACME', 'E0ACME')).toBe(true);
    expect(administers(orgOwner, 'E0ACME', 'E0ACME')).toBe(true);
    expect(administers(workspaceAdmin, 'E0ACME', 'E0ACME')).toBe(false);
  });

  it('another organization’s admin administers nothing here', () => {
    const other = { team_id: 'T0X', enterprise_user: { enterprise_id: 'E0OTHER', is_admin: true } };
    expect(administers(other, 'E0ACME', 'E0ACME')).toBe(false);
    expect(administers(other, 'T0OPS', 'E0ACME')).toBe(false);
  });

  it('outside Grid: the workspace’s admins, owners and primary owner', () => {
    expect(administers({ is_owner: true }, 'T0SOLO')).toBe(true);
    expect(administers({ is_primary_owner: true }, 'T0SOLO')).toBe(true);
    expect(administers({}, 'T0SOLO')).toBe(false);
  });
});
