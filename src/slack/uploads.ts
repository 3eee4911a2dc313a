// A file's bytes sent by Slack's external upload flow: files.getUploadURLExternal gives a URL and
// the file's id, the bytes go to that URL, and nobody sees the file until files.completeUploadExternal
// shares it (the caller's next move). For charts (reports, alerts) and audit exports alike.
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type { CallPace } from '../throttles/call-pace.js';
import { paceKeys } from './web-api-paces.js';
import type { WorkspaceClients } from './workspace-clients.js';

/** The upload URL refused the bytes or could not be reached: the work is tried again later. */
export class UploadFailedError extends Error {
  override readonly name = 'UploadFailedError';
}

/** A file to send: its bytes (in memory, or streamed from disk) and how long sending may take. */
export interface UploadBody {
  /** In memory, or a stream opened only when the bytes are sent (none is left open unread). */
  bytes: Buffer | (() => Readable);
  length: number;
  contentType: string;
  timeoutMs: number;
  /** What it is, for the error when it cannot be sent: "the chart", "the export". */
  what: string;
  /** Aborts the sending itself (not only a wait before it). */
  signal?: AbortSignal;
}

/**
 * Sends a file's bytes to the upload URL files.getUploadURLExternal gave; its id once they are
 * taken. Nobody sees the file until files.completeUploadExternal shares it.
 */
export async function uploadBytes(
  url: string | undefined,
  fileId: string | undefined,
  body: UploadBody,
): Promise<string> {
  if (!url || !fileId) throw new UploadFailedError('files.getUploadURLExternal gave no URL');
  try {
    const answer = await request(url, {
      method: 'POST',
      body: Buffer.isBuffer(body.bytes) ? body.bytes : body.bytes(),
      headers: { 'content-type': body.contentType, 'content-length': String(body.length) },
      headersTimeout: body.timeoutMs,
      bodyTimeout: body.timeoutMs,
      ...(body.signal ? { signal: body.signal } : {}),
    });
    await answer.body.dump();
    if (answer.statusCode >= 300)
      throw new UploadFailedError(`the upload URL answered ${answer.statusCode}`);
  } catch (error) {
    throw error instanceof UploadFailedError
      ? error
      : new UploadFailedError(`${body.what} could not be uploaded`, { cause: error });
  }
  return fileId;
}

/**
 * Uploads a file of the workspace, its URL asked for within the workspace's Tier 4 budget
 * (CallPace); `wait` cuts that wait short, and the upload is then not made. Its file id.
 */
export async function uploadFile(
  clients: WorkspaceClients,
  pace: CallPace,
  workspaceId: string,
  filename: string,
  body: UploadBody,
  wait?: AbortSignal,
): Promise<string> {
  const token = await clients.tokenFor(workspaceId);
  const { upload_url: url, file_id: fileId } = await pace.turn(
    [paceKeys.tier4(workspaceId, 'files.getUploadURLExternal')],
    () => clients.client.files.getUploadURLExternal({ token, filename, length: body.length }),
    wait,
  );
  return uploadBytes(url, fileId, body);
}
