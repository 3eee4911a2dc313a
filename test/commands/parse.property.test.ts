// The /cdn parser on arbitrary text: never throws, and every word it yields is whole.
import { describe, expect, it } from 'vitest';
import { parseCommand, suggestSubcommand, tokenize } from '../../src/commands/parse.js';
import { SUBCOMMAND_NAMES } from '../../src/commands/registry.js';
import { parseZonesArgs } from '../../src/listeners/commands/zones.js';
import { parsePurgeArgs } from '../../src/services/purge-targets.js';
import { anyText, fc, RUNS } from '../helpers/property.js';

describe('the /cdn parser, on any text', () => {
  it('splits into non-empty words without white space outside Slack escapes', () => {
    fc.assert(
      fc.property(anyText(500), (text) => {
        const tokens = tokenize(text);
        for (const token of tokens) {
          expect(token.length).toBeGreaterThan(0);
          if (!token.startsWith('<')) expect(token).not.toMatch(/\s/);
        }
        const { name, args } = parseCommand(text);
        expect(name).toBe(name.toLowerCase());
        expect(args.length).toBe(Math.max(0, tokens.length - 1));
      }),
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
