// /cdn audit [filters]: a page of the changes made from Slack; /cdn audit export [filters]: the
// same as a CSV file, made in the background.
import { auditExportStartedText, auditPageMessage } from '../../blocks/audit.js';
import { parseAuditQuery } from '../../commands/audit-query.js';
import { AppError } from '../../errors.js';
import type { SubcommandHandler } from './context.js';

/** Entries a page shows. */
export const AUDIT_PAGE_SIZE = 20;

export const audit: SubcommandHandler = async ({ tokens, deps, caller, respond }) => {
  const parsed = parseAuditQuery(tokens);
  if (!parsed.ok)
    throw new AppError({ code: 'audit_filter', word: parsed.word, reason: parsed.reason });
  if (parsed.export) {
    await deps.auditExport.start(caller, parsed.query);
    await respond({ response_type: 'ephemeral', text: auditExportStartedText(parsed.query).text });
    return;
  }
  const page = await deps.activity.search(caller, parsed.query, {}, AUDIT_PAGE_SIZE);
  await respond(auditPageMessage(page, parsed.query));
};
