// docs/commands.md is generated from the one subcommand list and details.yaml: every subcommand has
// its text there (and nothing else does), and the committed file is what `npm run docs:commands` writes.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  COMMANDS_DOC,
  readCommandDetails,
  renderCommandsDoc,
} from '../../src/dev/commands-doc/render.js';
import { HELP_ENTRIES } from '../../src/listeners/commands/registry.js';

describe('docs/commands.md', () => {
  it('has the long text of every subcommand of the registry, and of nothing else', async () => {
    const details = await readCommandDetails();
    expect(Object.keys(details.commands).sort()).toEqual(HELP_ENTRIES.map((s) => s.name).sort());
  });

  it('is committed as generated (npm run docs:commands writes it)', async () => {
    const committed = await readFile(COMMANDS_DOC, 'utf8');
    const generated = renderCommandsDoc(HELP_ENTRIES, await readCommandDetails());
    expect(committed, 'docs/commands.md is stale: run `npm run docs:commands`').toBe(generated);
    // Each subcommand's usage and summary, as /cdn help shows them.
    for (const sub of HELP_ENTRIES) {
      expect(committed).toContain(`### \`/cdn ${sub.name}\``);
      expect(committed).toContain(sub.summary.replaceAll('|', '\\|'));
    }
  });

  it('refuses a subcommand without its text, and text for no subcommand', async () => {
    const details = await readCommandDetails();
    const { watch: _watch, ...withoutWatch } = details.commands;
    expect(() => renderCommandsDoc(HELP_ENTRIES, { ...details, commands: withoutWatch })).toThrow(
      'without text: watch; not a subcommand: none',
    );
    const extra = { ...details.commands, flush: details.commands.help ?? [] };
    expect(() => renderCommandsDoc(HELP_ENTRIES, { ...details, commands: extra })).toThrow(
      'without text: none; not a subcommand: flush',
    );
  });
});
