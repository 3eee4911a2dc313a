// Slack's processing of an uploaded file: until it is done, an image block cannot show the file.
import type { Args, UploadedFile } from './types.js';

/** Whether Slack has processed a completed file, so that blocks may show it. */
export function isReady(file: UploadedFile | undefined, now: number): boolean {
  return !!file?.completed && now >= (file.readyAt ?? 0);
}

/**
 * What Slack says of each image (a block, or a section's accessory) whose `slack_file` names a
 * file that is not usable yet (unknown, never completed, or still being processed). The words are
 * Slack's: `invalid slack file [json-pointer:/blocks/0/slack_file]`
 * (https://github.com/slackapi/python-slack-sdk/issues/1658); the same post works a moment later
 * (https://github.com/slackapi/python-slack-sdk/issues/1521,
 * https://github.com/slackapi/java-slack-sdk/issues/1349).
 */
export function slackFileProblems(
  blocks: unknown,
  files: ReadonlyMap<string, UploadedFile>,
  now: number,
): string[] {
  if (!Array.isArray(blocks)) return [];
  const problems: string[] = [];
  blocks.forEach((block: Args, index) => {
    for (const [image, path] of [
      [block, `/blocks/${index}`],
      [block?.accessory as Args | undefined, `/blocks/${index}/accessory`],
    ] as const) {
      const id = (image?.slack_file as Args | undefined)?.id;
      if (image?.type === 'image' && typeof id === 'string' && !isReady(files.get(id), now))
        problems.push(`invalid slack file [json-pointer:${path}/slack_file]`);
    }
  });
  return problems;
}
