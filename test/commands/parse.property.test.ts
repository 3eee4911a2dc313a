// The /cdn parser on arbitrary text: never throws, every word it yields is whole, and whatever a
// person types is read back as typed once Slack has escaped it (a URL's IDN host as Slack links it).
import { domainToASCII } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommand, suggestSubcommand } from '../../src/commands/parse.js';
import { escapeTyped } from '../../src/dev/fake-slack/escape.js';
import { SlackRecords } from '../../src/dev/fake-slack/records.js';
import { SUBCOMMAND_NAMES } from '../../src/listeners/commands/registry.js';
import { parseZonesArgs } from '../../src/listeners/commands/zones.js';
import { parsePurgeArgs } from '../../src/services/purge/purge-targets.js';
import { anyText, fc, RUNS } from '../helpers/property.js';

/**
 * A typed URL as Slack links it: with an internationalised host in punycode and no label
 * (src/dev/fake-slack/escape.ts, pyconjp/pyconjpbot#49), so that is what is read back.
 */
function asSlackLinksIt(word: string): string {
  const [, scheme, host, rest] = /^(https?:\/\/)([^/?#|]*)([^|]*)$/i.exec(word) ?? [];
  if (scheme === undefined || host === undefined || !/\P{ASCII}/u.test(host)) return word;
  return `${scheme}${domainToASCII(host) || host}${rest ?? ''}`;
}

describe('the /cdn parser, on any text', () => {
  it('splits into non-empty words without white space outside Slack escapes', () => {
    fc.assert(
      fc.property(anyText(500), (text) => {
        const { name, args, tokens } = parseCommand(text);
        expect(name).toBe(name.toLowerCase());
        expect(args).toEqual(tokens.map((token) => token.text));
        for (const token of tokens) {
          if (token.kind === 'word') expect(token.text).toMatch(/^\S+$/);
          else expect(token.text.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('reads back every word as typed, once Slack has escaped it (links, mentions, entities)', () => {
    const workspace = new SlackRecords();
    workspace.addUser({ id: 'UBOB', name: 'bob' });
    workspace.addChannel({ id: 'COPS', name: 'ops', botMember: true });
    workspace.addUsergroup('SSRE', 'sre', []);
    const word = fc.oneof(
      fc.domain(),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.emailAddress(),
      fc.tuple(fc.domain(), fc.webPath()).map(([domain, path]) => `${domain}${path}`),
      fc.constantFrom(
        '#ops',
        '@bob',
        '@sre',
        '@here',
        '#nowhere',
        'requests>50k/5m',
        'hitrate<80%',
      ),
      fc.constantFrom('tag:a&b', '&amp;', '<https://x.io|y>', '<!here>', 'a.io|b', '7:30'),
      anyText(30),
    );
    fc.assert(
      fc.property(
        fc.array(
          word.filter((w) => /^\S+$/.test(w)),
          { maxLength: 8 },
        ),
        (words) => {
          const { args } = parseCommand(escapeTyped(['purge', ...words].join(' '), workspace));
          expect(args).toEqual(words.map(asSlackLinksIt));
        },
      ),
      { numRuns: RUNS.pure },
    );
  });

  it('reads subcommand arguments without throwing', () => {
    fc.assert(
      fc.property(fc.array(anyText(60), { maxLength: 12 }), (words) => {
        parsePurgeArgs(words);
        parseZonesArgs(words);
        suggestSubcommand(words[0] ?? '', SUBCOMMAND_NAMES);
      }),
      { numRuns: RUNS.pure },
    );
  });

  it('copes with a 10,000-character command', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 10_000, maxLength: 10_000 }), (text) => {
        const { args } = parseCommand(`purge ${text}`);
        parsePurgeArgs(args);
      }),
      { numRuns: 50 },
    );
  });
});
