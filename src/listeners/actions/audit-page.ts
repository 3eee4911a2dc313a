// The audit page's Previous/Next buttons: the same message, the page before or after, same filters.
import { type AuditPagerValue, auditPageMessage } from '../../blocks/audit.js';
import type { AppDeps } from '../../deps.js';
import type { AuditPageAt } from '../../services/audit/activity.js';
import { AUDIT_PAGE_SIZE } from '../commands/audit.js';
import { type ButtonArgs, callerOf } from '../context.js';

const isCursor = (value: unknown): value is { at: number; id: number } =>
  typeof value === 'object' &&
  value !== null &&
  Number.isSafeInteger((value as { at?: unknown }).at) &&
  Number.isSafeInteger((value as { id?: unknown }).id);

const text = (value: unknown) =>
  typeof value === 'string' && value.length <= 200 ? value : undefined;

/** The button's value, read as untrusted: anything unexpected is left out (the first page). */
function parseValue(raw: string | undefined): AuditPagerValue {
  let parsed: Partial<AuditPagerValue> = {};
  try {
    parsed = JSON.parse(raw ?? '{}') as Partial<AuditPagerValue>;
  } catch {}
  const q = (typeof parsed.q === 'object' && parsed.q !== null ? parsed.q : {}) as Record<
    string,
    unknown
  >;
  const at = (parsed.at ?? {}) as Record<string, unknown>;
  const actor = q.actor as { kind?: unknown; userId?: unknown; name?: unknown } | undefined;
  const zone = text(q.zone);
  const account = text(q.account);
  const since = text(q.since);
  const until = text(q.until);
  const kind = text(q.kind);
  const page: AuditPageAt = isCursor(at.after)
    ? { after: at.after }
    : isCursor(at.before)
      ? { before: at.before }
      : {};
  return {
    q: {
      ...(zone ? { zone } : {}),
      ...(account ? { account } : {}),
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
      ...(kind ? { kind: kind as never } : {}),
      ...(actor?.kind === 'user' && text(actor.userId)
        ? { actor: { kind: 'user', userId: actor.userId as string } }
        : actor?.kind === 'token' && text(actor.name)
          ? { actor: { kind: 'token', name: actor.name as string } }
          : {}),
    },
    at: page,
  };
}

export function auditPage(deps: AppDeps) {
  return async ({ ack, action, respond, context }: ButtonArgs) => {
    await ack();
    const value = parseValue(action.value);
    const page = await deps.activity.search(callerOf(context), value.q, value.at, AUDIT_PAGE_SIZE);
    await respond({ replace_original: true, ...auditPageMessage(page, value.q) });
  };
}
