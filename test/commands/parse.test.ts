import { describe, expect, it } from 'vitest';
import { parseCommand, suggestSubcommand } from '../../src/commands/parse.js';
import { SUBCOMMAND_NAMES } from '../../src/listeners/commands/registry.js';
import { parseZonesArgs } from '../../src/listeners/commands/zones.js';
import { httpUrlsIn } from '../../src/text.js';

describe('the /cdn parser', () => {
  it('splits words but keeps Slack escapes whole', () => {
    expect(parseCommand('  config   operators <!subteam^S1|@sre team>  ')).toEqual({
      name: 'config',
      args: ['operators', '@sre team'],
      tokens: [
        { kind: 'word', text: 'operators' },
        { kind: 'usergroup', id: 'S1', label: '@sre team', text: '@sre team' },
      ],
    });
    expect(parseCommand('ZONES Active Page 2')).toMatchObject({
      name: 'zones',
      args: ['Active', 'Page', '2'],
    });
    expect(parseCommand('')).toEqual({ name: '', args: [], tokens: [] });
  });

  // Every form Slack sends a typed argument in (slackhq/slack-api-docs page_formatting.md), read
  // back as typed; mentions keep their ids.
  it.each([
    // A bare domain, with a path, an IDN (linked by its punycode or not), an upper-case one.
    ['<http://acme.com|acme.com>', 'acme.com', { kind: 'link', url: 'http://acme.com' }],
    ['<http://acme.com/a.css|acme.com/a.css>', 'acme.com/a.css', { kind: 'link' }],
    ['<http://xn--bcher-kva.de|bücher.de>', 'bücher.de', { kind: 'link' }],
    ['<http://bücher.de|bücher.de>', 'bücher.de', { kind: 'link' }],
    ['<http://Shop.Example.dev|Shop.Example.dev>', 'Shop.Example.dev', { kind: 'link' }],
    // A URL, bare or labelled by the person (the URL is what counts), its `&` as `&amp;`.
    ['<https://acme.com/a.css>', 'https://acme.com/a.css', { kind: 'link' }],
    ['<https://acme.com/a?x=1&amp;y=2>', 'https://acme.com/a?x=1&y=2', { kind: 'link' }],
    [
      '<https://acme.com/a.css|the stylesheet>',
      'https://acme.com/a.css',
      { label: 'the stylesheet' },
    ],
    ['<mailto:a@b.co|a@b.co>', 'a@b.co', { kind: 'link', url: 'mailto:a@b.co' }],
    // Mentions.
    ['<@U123|ana>', '@ana', { kind: 'user', id: 'U123' }],
    ['<@U123>', '@U123', { kind: 'user', id: 'U123' }],
    ['<#C123|ops>', '#ops', { kind: 'channel', id: 'C123' }],
    ['<#C123>', '#C123', { kind: 'channel', id: 'C123' }],
    ['<!subteam^S123|@sre>', '@sre', { kind: 'usergroup', id: 'S123' }],
    ['<!subteam^S123>', '@S123', { kind: 'usergroup', id: 'S123' }],
    ['<!here>', '@here', { kind: 'special', name: 'here' }],
    ['<!here|@here>', '@here', { kind: 'special', name: 'here' }],
    // Entities, decoded exactly once, and plain words.
    ['requests&gt;50k/5m', 'requests>50k/5m', { kind: 'word' }],
    ['hitrate&lt;80%', 'hitrate<80%', { kind: 'word' }],
    ['tag:a&amp;b', 'tag:a&b', { kind: 'word' }],
    ['&amp;lt;', '&lt;', { kind: 'word' }],
    ['/assets/app.css?v=1&amp;w=2', '/assets/app.css?v=1&w=2', { kind: 'word' }],
    ['everything', 'everything', { kind: 'word' }],
    ['7:30', '7:30', { kind: 'word' }],
    // A link inside a word leaves the word as typed.
    ['tag:<http://v1.io|v1.io>', 'tag:v1.io', { kind: 'word' }],
  ])('reads %s as %s', (sent, typed, token) => {
    const { args, tokens } = parseCommand(`purge ${sent}`);
    expect(args).toEqual([typed]);
    expect(tokens).toEqual([expect.objectContaining({ text: typed, ...token })]);
  });

  it('finds the http(s) URLs of a Slack message, in words too, once each', () => {
    const text =
      'Broken: <https://example.com/a.css|a.css> and (<https://example.com/b.js>), also https://example.com/c?x=1&amp;y=2 and <https://example.com/b.js> <mailto:a@b.co|a@b.co>';
    expect(httpUrlsIn(text)).toEqual([
      'https://example.com/a.css',
      'https://example.com/b.js',
      'https://example.com/c?x=1&y=2',
    ]);
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

  it.each([
    [[], { page: 1 }],
    [['active'], { status: 'active', page: 1 }],
    [['pending', 'page', '3'], { status: 'pending', page: 3 }],
    [['4'], { page: 4 }],
    [['page', '0'], undefined],
    [['archived'], { name: 'archived', page: 1 }],
    [['active', 'bücher', '2'], { status: 'active', name: 'bücher', page: 2 }],
    [['xn--bcher-kva.example'], { name: 'xn--bcher-kva.example', page: 1 }],
    [['shop', 'blog'], undefined],
    [['active', 'deleted'], undefined],
    [['page'], undefined],
  ])('reads zones args %j', (args, expected) => {
    expect(parseZonesArgs(args as string[])).toEqual(expected);
  });
});
