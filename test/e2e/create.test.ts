import { describe, expect, it } from 'vitest';
import { CREATE_IDS } from '../../src/blocks/ids.js';
import { commandReply } from './flows.js';
import { ADMIN, EDGE, MEMBER, OTHER, startHarness, textOf, viewIdOf } from './harness.js';

const formValues = (domain: string, plan = 'free') => ({
  [CREATE_IDS.domainBlock]: {
    [CREATE_IDS.domainInput]: { type: 'plain_text_input', value: domain },
  },
  [CREATE_IDS.planBlock]: {
    [CREATE_IDS.planInput]: {
      type: 'static_select',
      selected_option: { text: { type: 'plain_text', text: plan }, value: plan },
    },
  },
});

describe('/cdn create', () => {
  it('onboards a domain and shows the CNAME record to set, in the channel', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'create Shop.Example.dev pro');
    expect(reply?.ephemeralTo).toBeUndefined();
    const text = textOf(reply?.blocks);
    expect(text).toContain(`shop.example.dev.  CNAME  ${EDGE}.`);
    expect(text).toContain('pending');
    expect(text).toContain('on the pro plan');
    expect(h.sandbox.requests.find((r) => r.method === 'POST')?.body).toEqual({
      name: 'shop.example.dev',
      plan: 'pro',
    });
    const [audit] = await h.store.audit.recent(h.workspaceId);
    expect(audit).toMatchObject({
      action: 'zone.create',
      zoneName: 'shop.example.dev',
      outcome: 'ok',
      actorId: MEMBER,
    });
  });

  it('always sends a plan, free unless one is named', async () => {
    const h = await startHarness({ login: true });
    await h.command('create new.example.dev');
    await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(h.sandbox.requests.find((r) => r.method === 'POST')?.body).toEqual({
      name: 'new.example.dev',
      plan: 'free',
    });
  });

  it.each([
    ['https://shop.example.com/path', 'without http://'],
    ['shop..example.com', 'letters, digits or hyphens'],
    ['localhost', 'at least two labels'],
  ])('refuses %s before any API call', async (domain, reason) => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, `create ${domain}`);
    expect(reply?.ephemeralTo).toBe(MEMBER);
    expect(reply?.text).toContain('is not a domain I can onboard');
    expect(reply?.text).toContain(reason);
    expect(h.sandbox.requests).toEqual([]);
  });

  it('refuses an unknown plan', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'create a.example.dev platinum');
    expect(reply?.text).toContain('`platinum` is not a plan');
    expect(h.sandbox.requests).toEqual([]);
  });

  it('reports a domain that is already a zone', async () => {
    const h = await startHarness({ login: true });
    const reply = await commandReply(h, 'create example.com');
    expect(reply?.text).toBe('The CDN refused: A zone named example.com already exists.');
  });

  it('onboards through the form, converting an IDN to punycode', async () => {
    const h = await startHarness({ login: true });
    await h.command('create');
    const [opened] = await h.slack.waitForCalls((c) => c.method === 'views.open');
    const viewId = viewIdOf(opened);

    const invalid = JSON.parse((await h.submit(viewId, formValues('https://x.example.com'))).body);
    expect(invalid.errors[CREATE_IDS.domainBlock]).toContain('without http://');
    expect(h.sandbox.requests).toEqual([]);

    const closed = await h.submit(viewId, formValues('Bücher.example', 'business'));
    expect([closed.status, closed.body]).toEqual([200, '']);
    const [reply] = await h.slack.waitForMessages((m) => m.via === 'response_url');
    expect(textOf(reply?.blocks)).toContain(`xn--bcher-kva.example.  CNAME  ${EDGE}.`);
    expect(h.sandbox.requests.find((r) => r.method === 'POST')?.body).toEqual({
      name: 'xn--bcher-kva.example',
      plan: 'business',
    });
  });

  it('is limited to the operators group when one is configured', async () => {
    const h = await startHarness({ login: true });
    h.slack.addUsergroup('S0OPS', 'cdn-ops', [ADMIN, OTHER]);
    const configured = await commandReply(h, 'config operators @cdn-ops', { user: ADMIN });
    expect(textOf(configured?.blocks)).toContain('Operators updated');

    await h.command('create refused.example.dev', { user: MEMBER });
    const [, refused] = await h.slack.waitForMessages((m) => m.via === 'response_url', 2);
    expect(refused?.text).toContain(
      "Only members of this workspace's CDN operators group can onboard domains",
    );
    await h.command('create allowed.example.dev', { user: OTHER });
    const [, , allowed] = await h.slack.waitForMessages((m) => m.via === 'response_url', 3);
    expect(textOf(allowed?.blocks)).toContain('allowed.example.dev.  CNAME');
    expect(h.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });
});
