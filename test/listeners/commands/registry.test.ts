import type { SlashCommand } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import { helpMessage } from '../../../src/blocks/help.js';
import { suggestSubcommand } from '../../../src/commands/parse.js';
import type { AppDeps } from '../../../src/deps.js';
import {
  HELP_ENTRIES,
  SUBCOMMAND_NAMES,
  SUBCOMMANDS,
  usageHint,
} from '../../../src/listeners/commands/registry.js';
import { routeCommand } from '../../../src/listeners/commands/router.js';
import { textOf } from '../../e2e/harness.js';

describe('the subcommand list', () => {
  it('is what help shows: every routed subcommand, with its usage and summary', () => {
    const help = textOf(helpMessage(HELP_ENTRIES).blocks);
    for (const entry of SUBCOMMANDS) {
      expect(help).toContain(entry.usage);
      expect(help).toContain(entry.summary);
    }
    expect(SUBCOMMAND_NAMES).toEqual([...SUBCOMMANDS.map((s) => s.name), 'help']);
    expect(new Set(SUBCOMMAND_NAMES).size).toBe(SUBCOMMAND_NAMES.length);
  });

  it('suggests any listed subcommand for a typo of it', () => {
    expect(suggestSubcommand('analytcs', SUBCOMMAND_NAMES)).toBe('analytics');
    for (const name of SUBCOMMAND_NAMES) {
      // Two letters swapped: the commonest typo.
      const typo = `${name.slice(0, 1)}${name.slice(2, 3)}${name.slice(1, 2)}${name.slice(3)}`;
      expect(suggestSubcommand(typo, SUBCOMMAND_NAMES)).toBe(name);
    }
  });

  it('gives the manifest a usage hint naming every subcommand', () => {
    const hint = usageHint();
    for (const name of SUBCOMMAND_NAMES) expect(hint).toMatch(new RegExp(`(^|\\| )${name}\\b`));
    expect(hint).toContain('purge <zone> <url>…');
    expect(hint).not.toContain('[');
  });
});

describe('the router', () => {
  const command = (text: string) => ({ text, user_id: 'U1', channel_id: 'C1' }) as SlashCommand;
  const route = async (text: string) => {
    const respond = vi.fn(async () => undefined);
    const calls: string[] = [];
    // Every handler records its name: the router must reach each one by its word.
    for (const entry of SUBCOMMANDS) {
      vi.spyOn(entry, 'handler').mockImplementation(async () => void calls.push(entry.name));
    }
    const deps = {};
    await routeCommand(deps as unknown as AppDeps)({
      command: command(text),
      ack: vi.fn(async () => undefined),
      respond,
      client: {},
      context: { caller: { workspaceId: 'T1', userId: 'U1', directory: {} } },
    } as never);
    vi.restoreAllMocks();
    return { calls, respond };
  };

  it.each(SUBCOMMANDS.map((s) => s.name))('routes %s to its handler', async (name) => {
    expect((await route(`${name} x`)).calls).toEqual([name]);
  });

  it('answers help, nothing, and an unknown word with help, without a handler', async () => {
    for (const text of ['', 'help', 'analytcs']) {
      const { calls, respond } = await route(text);
      expect(calls).toEqual([]);
      expect(respond).toHaveBeenCalledTimes(1);
    }
    const { respond } = await route('analytcs');
    expect(textOf((respond.mock.calls[0] as unknown as [{ blocks: unknown }])[0].blocks)).toContain(
      'Did you mean `/cdn analytics`?',
    );
  });
});
