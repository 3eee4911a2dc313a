// The fake Slack's views.* methods, with trigger ids usable once, for 3 seconds, as in Slack.
import { randomBytes } from 'node:crypto';
import { invalidBlocks } from './chat.js';
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args, FakeView } from './types.js';
import { validateView } from './validate.js';

const TRIGGER_TTL_MS = 3_000;

export class ViewMethods {
  readonly #triggers = new Map<string, { userId: string; issuedAt: number; used: boolean }>();

  constructor(
    private readonly records: SlackRecords,
    private readonly ids: SlackIds,
  ) {}

  /**
   * A trigger id as Slack puts in an interaction: usable once, for 3 seconds; a new one for each
   * interaction, a view_submission's included ("A temporary ID generated for the interaction",
   * https://api.slack.com/reference/interaction-payloads/shortcuts; slackapi/java-slack-sdk
   * json-logs/samples/app-backend/views/ViewSubmissionPayload.json has `trigger_id`).
   */
  mintTrigger(userId: string): string {
    const id = `${this.ids.next()}.${Date.now()}.${randomBytes(8).toString('hex')}`;
    this.#triggers.set(id, { userId, issuedAt: this.ids.now(), used: false });
    return id;
  }

  /** views.open and views.push: a new modal, for the trigger's user. */
  open(args: Args): Args {
    const trigger = this.#triggers.get(String(args.trigger_id));
    if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
    if (trigger.used) return { ok: false, error: 'exchanged_trigger_id' };
    if (this.ids.now() - trigger.issuedAt > TRIGGER_TTL_MS)
      return { ok: false, error: 'expired_trigger_id' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    trigger.used = true;
    const view = this.#add(trigger.userId, args.view as Args);
    return { ok: true, view: { ...view.view, id: view.id, hash: view.hash } };
  }

  update(args: Args): Args {
    const view =
      this.records.views.get(String(args.view_id)) ??
      [...this.records.views.values()].find(
        (v) => args.external_id !== undefined && v.view.external_id === args.external_id,
      );
    // A modal the person closed is gone: updating it answers not_found, as Slack does
    // (https://github.com/slackapi/bolt-js/issues/1309: "When I close the modal before
    // client.views.update is called, I get this error: An API error occurred: not_found").
    if (!view || view.closed) return { ok: false, error: 'not_found' };
    if (args.hash !== undefined && args.hash !== view.hash)
      return { ok: false, error: 'hash_conflict' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    view.view = args.view as Args;
    view.hash = this.ids.hash();
    return { ok: true, view: { ...view.view, id: view.id, hash: view.hash } };
  }

  /**
   * The person closes a modal (its Close button, the X, Escape): it is gone from their screen and
   * from Slack. Returns the view, whose `notify_on_close` says whether Slack sends the app a
   * view_closed payload (https://docs.slack.dev/reference/interaction-payloads/view-interactions-payload;
   * slackapi/java-slack-sdk json-logs/samples/app-backend/views/ViewClosedPayload.json).
   */
  close(viewId: string): FakeView {
    const view = this.records.views.get(viewId);
    if (!view || view.closed) throw new Error(`no open view ${viewId}`);
    view.closed = true;
    return view;
  }

  publish(args: Args): Args {
    const userId = String(args.user_id ?? '');
    if (!this.records.users.has(userId)) return { ok: false, error: 'user_not_found' };
    const errors = validateView(args.view);
    if (errors.length > 0) return invalidBlocks(errors);
    if ((args.view as Args).type !== 'home') return { ok: false, error: 'invalid_arguments' };
    const home: FakeView = {
      id: this.records.homes.get(userId)?.id ?? `VH${this.ids.next()}`,
      hash: this.ids.hash(),
      userId,
      view: args.view as Args,
    };
    this.records.homes.set(userId, home);
    return { ok: true, view: { ...home.view, id: home.id, hash: home.hash } };
  }

  /**
   * A view replaced by a view_submission's `response_action: "update"` (or pushed, with
   * `push`), checked as views.update would check it. Returns Slack's error, if any.
   * An `errors` answer never comes here: it stores no new view, so the view and its hash stay as
   * they were, and a second Submit carries the same hash (the hash is "the current stored value"
   * views.update's `hash_conflict` compares with, https://api.slack.com/methods/views.update).
   */
  applyResponseAction(
    viewId: string,
    response: { response_action: 'update' | 'push'; view: Args },
  ): { ok: true; view: FakeView } | { ok: false; errors: string[] } {
    const current = this.records.views.get(viewId);
    if (!current) return { ok: false, errors: [`no view ${viewId}`] };
    const errors = validateView(response.view);
    if (errors.length > 0) return { ok: false, errors };
    if (response.response_action === 'push') {
      return { ok: true, view: this.#add(current.userId, response.view) };
    }
    current.view = response.view;
    current.hash = this.ids.hash();
    return { ok: true, view: current };
  }

  #add(userId: string, view: Args): FakeView {
    const added: FakeView = { id: `V${this.ids.next()}`, hash: this.ids.hash(), userId, view };
    this.records.views.set(added.id, added);
    return added;
  }
}
