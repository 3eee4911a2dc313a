// A Workflow Builder step *Request a full purge* against a real kill -9: the step's
// `function_executed` reaches a bot process, which posts the request and stores the step's job,
// and is killed (SIGKILL) while the request waits; another process on the same database takes
// the decision and ends the step: functions.completeSuccess once when approved, completeError
// once when denied. The bots run on the system clock; moments are log lines and Slack's calls.
import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import type { FunctionExecution } from '../../src/dev/fake-slack/functions.js';
import type { Message } from '../../src/dev/fake-slack/server.js';
import { STEP_IDS } from '../../src/listeners/functions/steps.js';
import { WORKFLOW_STEP_JOB } from '../../src/services/workflows/workflow-steps.js';
import { BACKENDS } from '../helpers/store.js';
import { ADMIN, type Bot, CHANNEL, MEMBER, startWorld, type World } from './bot-process.js';
import { everythingCalls, nextView, openApprove, TEST_TIMEOUT_MS, textOf, ZONE } from './flows.js';

/**
 * The step runs on `bot` for MEMBER; resolves with its execution and request message once the
 * step's job is stored and waiting (the bot logged its first look, deferred).
 */
async function stepWaiting(world: World, bot: Bot, reason: string, looks: number) {
  const { execution, event } = world.slack.runStep(STEP_IDS.fullPurge, {
    user_id: MEMBER,
    channel_id: CHANNEL,
    zone: ZONE,
    reason,
  });
  expect((await bot.event(event)).status).toBe(200);
  const [request] = await world.slack.waitForMessages(
    (m) => m.via === 'api' && m.channel === CHANNEL && textOf(m.blocks).includes(reason),
  );
  if (!request) throw new Error('no request message');
  await bot.waitForLog((line) => line.msg === 'job deferred' && line.kind === WORKFLOW_STEP_JOB, {
    count: looks,
  });
  expect(execution.state).toBe('running');
  return { execution, request };
}

/** Every call that ended (or tried to end) `execution` at Slack. */
const endsOf = (world: World, execution: FunctionExecution) =>
  world.slack.calls
    .filter(
      (c) =>
        c.method.startsWith('functions.complete') && c.args.function_execution_id === execution.id,
    )
    .map((c) => ({ method: c.method, ok: c.response.ok }));

const ended = (world: World, execution: FunctionExecution) =>
  world.slack.waitForCalls(
    (c) =>
      c.method.startsWith('functions.complete') &&
      c.args.function_execution_id === execution.id &&
      c.response.ok === true,
  );

async function deny(world: World, bot: Bot, request: Message, note: string): Promise<void> {
  const viewId = await nextView(world, () => bot.click(request, APPROVAL_IDS.deny, ADMIN));
  const values = {
    [APPROVAL_IDS.denyReasonBlock]: {
      [APPROVAL_IDS.denyReasonInput]: { type: 'plain_text_input', value: note },
    },
  };
  expect(await bot.submit(viewId, values, ADMIN)).toEqual({ status: 200, body: '' });
}

describe.each(BACKENDS)(
  'a full-purge workflow step and kill -9 ($backend)',
  ({ backend, skip }) => {
    it.skipIf(skip)(
      'ends once on another process: completeSuccess when approved, completeError when denied',
      async () => {
        const world = await startWorld({ backend });
        const first = await world.spawnBot();
        const approved = await stepWaiting(world, first, 'Release 42 shipped a broken bundle', 1);
        expect(await first.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

        const second = await world.spawnBot();
        const viewId = await openApprove(world, second, approved.request);
        expect(await second.submit(viewId, {}, ADMIN)).toEqual({ status: 200, body: '' });
        const [success] = await ended(world, approved.execution);
        expect(success?.method).toBe('functions.completeSuccess');
        expect(approved.execution.state).toBe('completed');
        expect(approved.execution.outputs).toMatchObject({
          approved_by: ADMIN,
          status: 'succeeded',
        });
        expect(everythingCalls(world)).toHaveLength(1);

        // Another, asked of the second process, which dies too; the third takes the denial.
        const denied = await stepWaiting(world, second, 'Once more', 1);
        expect(await second.kill('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
        const third = await world.spawnBot();
        await deny(world, third, denied.request, 'Not on a Friday');
        const [failure] = await ended(world, denied.execution);
        expect(failure?.method).toBe('functions.completeError');
        expect(denied.execution.error).toBe('The request was denied: Not on a Friday');

        // Stopped cleanly, then counted: each step was ended once, and nothing tried again.
        expect(await third.kill('SIGTERM')).toEqual({ code: 0, signal: null });
        expect(endsOf(world, approved.execution)).toEqual([
          { method: 'functions.completeSuccess', ok: true },
        ]);
        expect(endsOf(world, denied.execution)).toEqual([
          { method: 'functions.completeError', ok: true },
        ]);
        expect(everythingCalls(world)).toHaveLength(1);
      },
      TEST_TIMEOUT_MS,
    );
  },
);
