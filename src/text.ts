// Slack's escapes in text people type: entities (`&amp;`) and links (`<https://a/b|label>`).

/** Slack sends command text with `&`, `<` and `>` as entities; a plain word gets them back. */
export function decodeEntities(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
