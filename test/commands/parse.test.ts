import { describe, expect, it } from 'vitest';
import {
  parseCommand,
  parseUsergroup,
  suggestSubcommand,
  tokenize,
} from '../../src/commands/parse.js';
import { SUBCOMMAND_NAMES } from '../../src/commands/registry.js';
import { parseZonesArgs } from '../../src/listeners/commands/zones.js';

describe('the /cdn parser', () => {
  it('splits words but keeps Slack escapes whole', () => {
    expect(tokenize('  config   operators <!subteam^S1|@sre team>  ')).toEqual([
      'config',
      'operators',
      '<!subteam^S1|@sre team>',
    ]);
    expect(parseCommand('ZONES Active Page 2')).toEqual({
      name: 'zones',
      args: ['Active', 'Page', '2'],
    });
    expect(parseCommand('')).toEqual({ name: '', args: [] });
  });

  it('gives plain words back their &, < and >, and leaves escapes to their readers', () => {
    expect(
      parseCommand('purge shop.example tag:a&amp;b &lt;x&gt; <https://s.example/?a=1&amp;b=2>'),
    ).toEqual({
      name: 'purge',
      args: ['shop.example', 'tag:a&b', '<x>', '<https://s.example/?a=1&amp;b=2>'],
    });
  });

  it.each([
    ['zoens', 'zones'],
    ['zone', 'zones'],
    ['ratelimt', 'ratelimit'],
    ['crate', 'create'],
    ['logni', 'login'],
    ['hlep', 'help'],
    ['purgatory', undefined],
    ['x', undefined],
    ['analytcs', 'analytics'],
    ['reprot', 'report'],
    ['audti', 'audit'],
  ])('suggests %s → %s', (typo, suggestion) => {
    expect(suggestSubcommand(typo, SUBCOMMAND_NAMES)).toBe(suggestion);
  });

  it('reads user-group mentions', () => {
    expect(parseUsergroup('<!subteam^S0OPS|@cdn-ops>')).toEqual({
      id: 'S0OPS',
      handle: '@cdn-ops',
    });
    expect(parseUsergroup('<!subteam^S0OPS>')).toEqual({ id: 'S0OPS' });
    expect(parseUsergroup('@cdn-ops')).toBeUndefined();
    expect(parseUsergroup('<@U123>')).toBeUndefined();
  });

  it.each([
    [[], { page: 1 }],
    [['active'], { status: 'active', page: 1 }],
    [['pending', 'page', '3'], { status: 'pending', page: 3 }],
    [['4'], { page: 4 }],
    [['page', '0'], undefined],
    [['archived'], undefined],
    [['active', 'deleted'], undefined],
    [['page'], undefined],
  ])('reads zones args %j', (args, expected) => {
    expect(parseZonesArgs(args as string[])).toEqual(expected);
  });
});
