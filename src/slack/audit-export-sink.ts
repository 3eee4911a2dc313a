// AuditExportSink over the Web API: the CSV is uploaded with Slack's external upload flow
// (files.getUploadURLExternal, the bytes streamed from disk to the upload URL, then
// files.completeUploadExternal) and shared in the requester's DM with the bot, whose id
// conversations.open gives: files.completeUploadExternal takes a conversation id (C, G, D or Z),
// never a user id (https://github.com/slackapi/bolt-js/issues/2115). The export holds records for
// the requester's eyes (what they may see of conversations they are in), so it never goes to a
// channel where others, guests among them, would read it.
import { createReadStream } from 'node:fs';
import {
  auditExportDoneText,
  auditExportFailedText,
  auditExportRefusedText,
} from '../blocks/audit.js';
import type { AppError } from '../errors.js';
import type { AuditQuery } from '../services/audit/activity.js';
import type { AuditExportSink, ExportFile } from '../services/audit/audit-export.js';
import type { CallPace } from '../throttles/call-pace.js';
import { backgroundDirectory, type GroupMembersCache } from './directory.js';
import { failureReason } from './explain.js';
import { UploadFailedError, uploadFile } from './uploads.js';
import { isTransientSlackError, slackErrorCode } from './web-api-errors.js';
import { paceKeys } from './web-api-paces.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** How long the upload of an export's bytes may take (a million rows is some 150 MB). */
const UPLOAD_TIMEOUT_MS = 120_000;

export class SlackAuditExportSink implements AuditExportSink {
  constructor(
    private readonly clients: WorkspaceClients,
    private readonly pace: CallPace,
    private readonly people: GroupMembersCache,
  ) {}

  directory(workspaceId: string) {
    return backgroundDirectory(this.clients, this.people, workspaceId);
  }

  async upload(workspaceId: string, file: ExportFile, signal?: AbortSignal): Promise<string> {
    return uploadFile(
      this.clients,
      this.pace,
      workspaceId,
      file.filename,
      {
        // Streamed from disk: the file is never held in memory whole.
        bytes: () => createReadStream(file.path),
        length: file.size,
        contentType: 'text/csv',
        timeoutMs: UPLOAD_TIMEOUT_MS,
        what: 'the export',
        ...(signal ? { signal } : {}),
      },
      signal,
    );
  }

  async #dm(userId: string, token: string): Promise<string> {
    const opened = await this.clients.client.conversations.open({ token, users: userId });
    const id = opened.channel?.id;
    if (!id) throw new Error('conversations.open gave no channel');
    return id;
  }

  async share(
    workspaceId: string,
    userId: string,
    file: { fileId: string; rows: number; query: AuditQuery },
  ): Promise<void> {
    const token = await this.clients.tokenFor(workspaceId);
    const channelId = await this.#dm(userId, token);
    await this.pace.turn(
      [
        paceKeys.tier4(workspaceId, 'files.completeUploadExternal'),
        paceKeys.channel(workspaceId, channelId),
      ],
      () =>
        this.clients.client.files.completeUploadExternal({
          token,
          files: [{ id: file.fileId, title: 'Audit export' }],
          channel_id: channelId,
          initial_comment: auditExportDoneText(file.rows, file.query).text,
        }),
    );
  }

  async shared(workspaceId: string, fileId: string): Promise<boolean | 'unknown'> {
    const token = await this.clients.tokenFor(workspaceId);
    try {
      const { file } = await this.clients.client.files.info({ token, file: fileId });
      const where = [...(file?.channels ?? []), ...(file?.groups ?? []), ...(file?.ims ?? [])];
      return where.length > 0 || Object.keys(file?.shares ?? {}).length > 0;
    } catch (error) {
      if (slackErrorCode(error) === 'file_not_found') return false;
      return 'unknown';
    }
  }

  async failed(workspaceId: string, userId: string, error: unknown): Promise<void> {
    const token = await this.clients.tokenFor(workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: await this.#dm(userId, token),
      text: auditExportFailedText(failureReason(error)).text,
    });
  }

  async refused(workspaceId: string, userId: string, error: AppError): Promise<void> {
    const token = await this.clients.tokenFor(workspaceId);
    await this.clients.client.chat.postMessage({
      token,
      channel: await this.#dm(userId, token),
      text: auditExportRefusedText(failureReason(error)).text,
    });
  }

  transient(error: unknown): boolean {
    return error instanceof UploadFailedError || isTransientSlackError(error);
  }
}
