import { describe, expect, it } from 'vitest';
import { APPROVAL_IDS } from '../../src/blocks/ids.js';
import { STEP_IDS } from '../../src/listeners/functions/steps.js';
import { openApprove, runStep, stepEnd } from './flows.js';
import { ADMIN, CHANNEL, MEMBER, OTHER, startHarness, textOf, viewIdOf } from './harness.js';

describe('Workflow Builder steps', () => {
  it('purges URLs for the person who ran the workflow, and ends with the outputs', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.purge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      items: 'https://example.com/app.css\nhttps://example.com/app.js, tag:release',
    });
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeSuccess');
    expect(execution.state).toBe('completed');
    expect(execution.outputs).toEqual({
      purge_id: expect.any(String),
      status: 'succeeded',
      purged: 3,
      failed: 0,
    });
    // Sent with the bot's own token, not the event's workflow token (kept nowhere).
    expect(end.args).not.toHaveProperty('token');
    const purged = h.sandbox.state.purges.flatMap((p) => p.items);
    expect(purged).toEqual(
      expect.arrayContaining([
        'https://example.com/app.css',
        'https://example.com/app.js',
        'release',
      ]),
    );
    const audit = await h.store.audit.recent(h.workspaceId);
    expect(audit.map((e) => [e.action, e.actorId])).toContainEqual(['purge.urls_tags', MEMBER]);
    // Said once: nothing more went to Slack for this execution.
    expect(h.slack.calls.filter((c) => c.method.startsWith('functions.'))).toHaveLength(1);
  });

  it('runs over Socket Mode too: the event comes in an envelope', async () => {
    const h = await startHarness({ login: true, socket: true });
    const execution = await runStep(h, STEP_IDS.purge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      items: 'https://example.com/app.css',
    });
    expect((await stepEnd(h, execution)).method).toBe('functions.completeSuccess');
    expect(execution.outputs).toMatchObject({ status: 'succeeded', purged: 1 });
  });

  it('ends with an error, purging nothing, for someone who may not purge', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUsergroup('S0OPS', 'cdn-operators', [ADMIN]);
    await h.store.workspaces.update(h.workspaceId, { operatorGroupId: 'S0OPS' });
    const execution = await runStep(h, STEP_IDS.purge, {
      user_id: OTHER,
      channel_id: CHANNEL,
      items: 'https://example.com/app.css',
    });
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeError');
    expect(String(end.args.error)).toMatch(/operator/i);
    expect(h.sandbox.state.purges).toEqual([]);
  });

  it('a full purge ends only once approved, after a restart too; denied, it fails', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.fullPurge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      reason: 'Release 42 shipped a broken bundle',
    });
    const [request] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && textOf(m.blocks).includes('asked to purge everything'),
    );
    if (!request) throw new Error('no request');
    // Waiting for a second person: the step has not ended, and the process goes away.
    h.clock.advance(10_000);
    expect(execution.state).toBe('running');
    await h.restart();
    const viewId = await openApprove(h, request, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeSuccess');
    expect(execution.outputs).toMatchObject({ approved_by: ADMIN, status: 'succeeded' });
    expect(h.sandbox.state.purges.filter((p) => p.kind === 'everything')).toHaveLength(1);

    const denied = await runStep(h, STEP_IDS.fullPurge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      reason: 'Once more',
    });
    const [second] = await h.slack.waitForMessages(
      (m) => m.channel === CHANNEL && textOf(m.blocks).includes('Once more'),
    );
    if (!second) throw new Error('no second request');
    await h.click(second, APPROVAL_IDS.deny, { user: ADMIN });
    const [, opened] = await h.slack.waitForCalls((c) => c.method === 'views.open', 2);
    const reason = {
      [APPROVAL_IDS.denyReasonBlock]: {
        [APPROVAL_IDS.denyReasonInput]: { type: 'plain_text_input', value: 'Not on a Friday' },
      },
    };
    await h.submit(viewIdOf(opened), reason, { user: ADMIN });
    const failed = await stepEnd(h, denied);
    expect(failed.method).toBe('functions.completeError');
    expect(failed.args.error).toBe('The request was denied: Not on a Friday');
    expect(h.sandbox.state.purges.filter((p) => p.kind === 'everything')).toHaveLength(1);
  });

  it('a full purge ends as soon as its request does, the clock standing still; a lost wake is made up by the slow look', async () => {
    const h = await startHarness({ login: true });
    const ended = (execution: { id: string }) =>
      h.slack.waitForCalls(
        (c) =>
          c.method.startsWith('functions.complete') &&
          c.args.function_execution_id === execution.id,
      );
    const approved = await runStep(h, STEP_IDS.fullPurge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      reason: 'Approved at once',
    });
    const [request] = await h.slack.waitForMessages((m) =>
      textOf(m.blocks).includes('Approved at once'),
    );
    if (!request) throw new Error('no request');
    await h.deps.runner.settled();
    const viewId = await openApprove(h, request, ADMIN);
    await h.submit(viewId, {}, { user: ADMIN });
    // No clock moved: the request's end (its purge's outcome) woke the step.
    const [success] = await ended(approved);
    expect(success?.method).toBe('functions.completeSuccess');
    expect(approved.outputs).toMatchObject({ approved_by: ADMIN, status: 'succeeded' });

    // Decided where nothing wakes the step (as a process dying right after the decision would
    // leave it): the next slow look, 30 s on, ends it.
    const lost = await runStep(h, STEP_IDS.fullPurge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      reason: 'Wake lost',
    });
    await h.slack.waitForMessages((m) => textOf(m.blocks).includes('Wake lost'));
    await h.deps.runner.settled();
    const [pending] = await h.store.db
      .selectFrom('approvals')
      .select('id')
      .where('status', '=', 'pending')
      .execute();
    if (!pending) throw new Error('no pending request');
    await h.store.approvals.decide(pending.id, 'denied', { userId: ADMIN, note: 'quietly' });
    h.clock.advance(29_000);
    await h.deps.runner.settled();
    expect(lost.state).toBe('running');
    h.clock.advance(1_000);
    await h.deps.runner.settled();
    const [failure] = await ended(lost);
    expect(failure?.args.error).toBe('The request was denied: quietly');
    expect(
      h.slack.calls.filter((c) => c.method.startsWith('functions.complete')).map((c) => c.method),
    ).toEqual(['functions.completeSuccess', 'functions.completeError']);
  });

  it('refuses, purging nothing, a URL the zone named does not serve', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.purge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      items: 'https://example.com/a.css https://elsewhere.test/b.js',
    });
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeError');
    expect(end.args.error).toContain('Nothing was purged');
    expect(end.args.error).toContain('https://elsewhere.test/b.js');
    expect(h.sandbox.state.purges).toEqual([]);
  });

  it('a full purge nobody approved in time fails', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.fullPurge, {
      user_id: MEMBER,
      channel_id: CHANNEL,
      zone: 'example.com',
      reason: 'Nobody around',
    });
    await h.slack.waitForMessages((m) => textOf(m.blocks).includes('Nobody around'));
    h.clock.advance(31 * 60_000);
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeError');
    expect(end.args.error).toBe('The request expired before a second person approved it.');
    expect(h.sandbox.state.purges).toEqual([]);
  });

  it('reads a zone traffic for the window', async () => {
    const h = await startHarness({ login: true });
    const execution = await runStep(h, STEP_IDS.traffic, {
      user_id: MEMBER,
      zone: 'example.com',
      window: '24h',
    });
    const end = await stepEnd(h, execution);
    expect(end.method).toBe('functions.completeSuccess');
    expect(execution.outputs).toEqual({
      zone: 'example.com',
      requests: expect.any(Number),
      bandwidth: expect.any(Number),
      hit_rate: expect.any(Number),
    });
  });
});

describe('the fake Slack ends an execution once', () => {
  it('refuses an unknown execution and one already ended', async () => {
    const h = await startHarness({ login: true });
    const { execution } = h.slack.runStep(STEP_IDS.traffic, {});
    const call = (method: string, args: Record<string, unknown>) =>
      fetch(`${h.slack.url}/api/${method}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${h.slack.botToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(args),
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    expect(
      await call('functions.completeSuccess', { function_execution_id: 'FxNOPE', outputs: {} }),
    ).toEqual({ ok: false, error: 'function_execution_not_found' });
    expect(
      await call('functions.completeError', { function_execution_id: execution.id, error: 'no' }),
    ).toEqual({ ok: true });
    expect(
      await call('functions.completeSuccess', { function_execution_id: execution.id, outputs: {} }),
    ).toEqual({ ok: false, error: 'execution_not_in_running_state' });
  });
});
