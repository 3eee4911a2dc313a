// The fake Slack's two-step file upload: get an upload URL, POST the file, complete the upload;
// then a while of processing before an image block may show the file.
import type { ChatMethods } from './chat.js';
import { isReady } from './file-readiness.js';
import type { SlackIds } from './ids.js';
import type { SlackRecords } from './records.js';
import type { Args } from './types.js';

export class FileUploads {
  constructor(
    private readonly records: SlackRecords,
    private readonly ids: SlackIds,
    private readonly chat: ChatMethods,
    /** Where the file of this id is to be POSTed. */
    private readonly uploadUrl: (fileId: string) => string,
    /** How long a completed file is processed before blocks may show it (FakeSlackOptions). */
    private readonly readyMs: number,
  ) {}

  getUploadUrl(args: Args): Args {
    const filename = args.filename;
    const length = Number(args.length);
    if (typeof filename !== 'string' || filename === '')
      return { ok: false, error: 'invalid_arguments' };
    if (!Number.isInteger(length) || length <= 0) return { ok: false, error: 'invalid_arguments' };
    const id = `F${this.ids.next()}`;
    this.records.files.set(id, { id, filename, bytes: Buffer.alloc(0) });
    return { ok: true, upload_url: this.uploadUrl(id), file_id: id };
  }

  complete(args: Args): Args {
    const list = args.files;
    if (!Array.isArray(list) || list.length === 0) return { ok: false, error: 'invalid_arguments' };
    const channel = typeof args.channel_id === 'string' ? args.channel_id : undefined;
    // channel_id takes a conversation's id, never a person's: "input must match regex pattern:
    // ^[CGDZ][A-Z0-9]{8,}$ [json-pointer:/channel_id]" for a user id
    // (https://github.com/slackapi/bolt-js/issues/2115).
    if (channel && /^[UW]/.test(channel)) return { ok: false, error: 'invalid_arguments' };
    if (channel) {
      const problem = this.chat.channelProblem(channel, true);
      if (problem) return problem;
    }
    const done: Args[] = [];
    for (const entry of list as Args[]) {
      const file = this.records.files.get(String(entry.id));
      if (!file || file.bytes.length === 0) return { ok: false, error: 'file_not_found' };
      if (channel && file.channel !== channel) {
        file.channel = channel;
        file.shareTs = this.ids.ts();
      }
      file.completed = true;
      // "Files are processed asynchronously via a job handler"
      // (https://docs.slack.dev/reference/methods/files.getUploadURLExternal, usage info).
      file.readyAt ??= this.ids.now() + this.readyMs;
      if (typeof entry.title === 'string') file.title = entry.title;
      if (typeof args.initial_comment === 'string') file.initialComment = args.initial_comment;
      done.push({ id: file.id, title: file.title ?? file.filename });
    }
    return { ok: true, files: done };
  }

  /** files.info: a completed upload, with where it is shared (an upload never completed is no file). */
  info(args: Args): Args {
    const file = this.records.files.get(String(args.file));
    if (!file?.completed) return { ok: false, error: 'file_not_found' };
    const channel = file.channel;
    const shares =
      channel && file.shareTs
        ? {
            [channel.startsWith('G') ? 'private' : 'public']: { [channel]: [{ ts: file.shareTs }] },
          }
        : {};
    // Until the file is processed its type is empty: "mimetype: '', filetype: '', pretty_type: ''
    // … are populated when the file is 'ready'" (https://github.com/slackapi/java-slack-sdk/issues/1349;
    // and https://github.com/slackapi/node-slack-sdk/issues/2040: fields like mimetype wait for the scan).
    const png = isReady(file, this.ids.now()) && file.filename.endsWith('.png');
    return {
      ok: true,
      file: {
        id: file.id,
        name: file.filename,
        title: file.title ?? file.filename,
        mimetype: png ? 'image/png' : '',
        filetype: png ? 'png' : '',
        pretty_type: png ? 'PNG' : '',
        channels: channel && !channel.startsWith('G') ? [channel] : [],
        groups: channel?.startsWith('G') ? [channel] : [],
        ims: [],
        shares,
      },
    };
  }
}

/** The file of an upload: the raw body, or the file part of a multipart form (as the Web API client sends it). */
export async function uploadedBytes(contentType: string, body: Buffer): Promise<Buffer> {
  if (!contentType.startsWith('multipart/form-data')) return body;
  // The platform's own multipart parser (undici's), not a hand-written one.
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  for (const value of form.values()) {
    if (typeof value !== 'string') return Buffer.from(await value.arrayBuffer());
  }
  return Buffer.alloc(0);
}
