// The replay guard driven directly: which deliveries are acknowledged before the store is asked,
// and that a repeat is acknowledged once and runs nothing.
import { describe, expect, it, vi } from 'vitest';
import { tracked } from '../../src/listeners/context.js';
import { replayGuard } from '../../src/listeners/replay-guard.js';
import type { ReplayGuard } from '../../src/services/replays.js';
import { captureLogs } from '../helpers/logs.js';
import {
  buildArguments,
  globalShortcut,
  type ListenerArgs,
  messageButton,
  runChain,
  slashCommand,
  viewSubmission,
} from './helpers.js';

/** A guard whose store answers only when the test says so. */
function heldGuard() {
  const seen = new Set<string>();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = vi.fn(async (key: string) => {
    await held;
    const isFirst = !seen.has(key);
    seen.add(key);
    return isFirst;
  });
  return { guard: { first } as unknown as ReplayGuard, first, release };
}

describe('replayGuard', () => {
  it.each([
    ['a slash command', slashCommand()],
    ['a shortcut', globalShortcut('cdn_purge')],
    ['a button', messageButton('zones_next')],
  ])(
    'acknowledges %s before the store answers, and the listener acks nothing more',
    async (_name, body) => {
      const { guard, first, release } = heldGuard();
      const built = buildArguments({ body });
      const listener = vi.fn(async (args: ListenerArgs) => {
        await args.ack();
      });
      const run = runChain(
        built.args,
        [replayGuard(guard, captureLogs().logger)],
        tracked(listener),
      );
      await vi.waitFor(() => expect(first).toHaveBeenCalledOnce());
      // The store has not answered: the ack went anyway.
      expect(built.ack).toHaveBeenCalledOnce();
      expect(listener).not.toHaveBeenCalled();
      release();
      await run;
      expect(listener).toHaveBeenCalledOnce();
      expect(built.ack).toHaveBeenCalledOnce();
    },
  );

  it("waits for the store before a modal's submission, whose ack carries the answer", async () => {
    const { guard, first, release } = heldGuard();
    const built = buildArguments({ body: viewSubmission('purge_form') });
    const listener = vi.fn(async (args: ListenerArgs) => {
      await args.ack({ response_action: 'clear' });
    });
    const run = runChain(built.args, [replayGuard(guard, captureLogs().logger)], tracked(listener));
    await vi.waitFor(() => expect(first).toHaveBeenCalledOnce());
    expect(built.ack).not.toHaveBeenCalled();
    release();
    await run;
    expect(built.ack).toHaveBeenCalledExactlyOnceWith({ response_action: 'clear' });
  });

  it.each([
    ['a slash command', slashCommand()],
    ['a modal submission', viewSubmission('purge_form')],
  ])('acknowledges a repeat of %s once and runs nothing', async (_name, body) => {
    const { guard, release } = heldGuard();
    release();
    const logs = captureLogs();
    const listener = vi.fn(async (args: ListenerArgs) => {
      await args.ack();
    });
    const once = buildArguments({ body });
    await runChain(once.args, [replayGuard(guard, logs.logger)], tracked(listener));
    const again = buildArguments({ body });
    await runChain(again.args, [replayGuard(guard, logs.logger)], tracked(listener));
    expect(listener).toHaveBeenCalledOnce();
    expect(again.ack).toHaveBeenCalledExactlyOnceWith();
    expect(logs.text()).toContain('repeated delivery acknowledged, not run');
  });

  it('runs a modal submitted again with the same values: a new press is a new trigger', async () => {
    const { guard, release } = heldGuard();
    release();
    const logs = captureLogs();
    const listener = vi.fn(async (args: ListenerArgs) => {
      await args.ack({ response_action: 'errors', errors: { zone: 'The CDN did not answer.' } });
    });
    for (const trigger of ['1.1.first', '1.2.second']) {
      const built = buildArguments({ body: viewSubmission('purge_form', { trigger_id: trigger }) });
      await runChain(built.args, [replayGuard(guard, logs.logger)], tracked(listener));
    }
    expect(listener).toHaveBeenCalledTimes(2);
    expect(logs.text()).not.toContain('repeated delivery');
  });
});
