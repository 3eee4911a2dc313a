// fast-check for the property tests: a fixed seed (FC_SEED overrides it) so CI runs the same
// cases every time, and run counts named once so the closing notes can quote them.
import fc from 'fast-check';

const seed = Number(process.env.FC_SEED ?? 20261122);
fc.configureGlobal({ seed, verbose: 1 });

/** Runs per property: pure functions are cheap; end-to-end ones go through Bolt over HTTP. */
export const RUNS = { pure: 2_000, e2e: 150 } as const;

/** Text of any kind: ASCII, full Unicode (astral planes, lone surrogates), Slack escapes. */
export const anyText = (maxLength = 200) =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc
      .array(
        fc.constantFrom(
          '<!channel>',
          '<@U123|x>',
          '<#C1|ops>',
          '<https://example.com/a|b>',
          '&lt;',
          '&amp;',
          'tag:',
          'https://',
          'example.com',
          ' ',
          '\n',
          '\u0000',
          '💥',
          '%00',
          '..',
          '/',
          '@',
          ':',
        ),
        { maxLength: 30 },
      )
      .map((parts) => parts.join('')),
  );

export { fc };
