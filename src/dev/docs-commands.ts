// Writes docs/commands.md from the subcommand list and details.yaml (`npm run docs:commands`);
// test/dev/commands-doc.test.ts fails when the committed file differs from it.
import { writeFile } from 'node:fs/promises';
import { HELP_ENTRIES } from '../listeners/commands/registry.js';
import { COMMANDS_DOC, readCommandDetails, renderCommandsDoc } from './commands-doc/render.js';

await writeFile(COMMANDS_DOC, renderCommandsDoc(HELP_ENTRIES, await readCommandDetails()));
