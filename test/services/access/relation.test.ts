import { describe, expect, it } from 'vitest';
import { relationOf } from '../../../src/services/access/relation.js';

describe('relationOf', () => {
  const grid = { teamId: 'T1', enterpriseId: 'E1' };
  const plain = { teamId: 'T1' };
  it.each([
    ['its own team', { teamId: 'T1' }, grid, 'member'],
    [
      'a team of its organization (users.info)',
      { teamId: 'T2', enterpriseId: 'E1' },
      grid,
      'colleague',
    ],
    ['its organization named as the team', { teamId: 'E1' }, grid, 'colleague'],
    ['another organization', { teamId: 'T2', enterpriseId: 'E2' }, grid, 'outsider'],
    [
      'a team of no organization, by users.info',
      { teamId: 'T2', enterpriseId: null },
      grid,
      'outsider',
    ],
    ['another team, by a payload that names no organization', { teamId: 'T2' }, grid, 'unknown'],
    ['another team, outside Grid', { teamId: 'T2' }, plain, 'outsider'],
    ['a Grid team, outside Grid', { teamId: 'T2', enterpriseId: 'E2' }, plain, 'outsider'],
    ['nobody named', {}, grid, 'unknown'],
  ] as const)('%s', (_name, person, workspace, relation) => {
    expect(relationOf(person, workspace)).toBe(relation);
  });
});
