// docs/benchmarks.md as sections: `## Title` headings, each followed by its body.
import type { Section } from './stats.js';

/**
 * `document` with `fresh` sections put in: one with a title already there replaces it; a new one
 * goes after the nearest section, among the titles listed before it in `order`, that the document
 * has (or first). The preamble and every other section stay as they are, byte for byte.
 */
export function spliceSections(
  document: string,
  fresh: Array<{ section: Section; note: string }>,
  order: string[],
): string {
  const parts = document.split(/^(?=## )/m);
  const preamble = parts[0] ?? '';
  const existing = parts.slice(1).map((text) => ({
    title: (text.split('\n')[0] ?? '').slice(3).trim(),
    text: `${text.replace(/\n*$/, '')}\n\n`,
  }));
  for (const { section, note } of fresh) {
    const text = `## ${section.title}\n\n${note}\n\n${section.body}\n\n`;
    const at = existing.findIndex((entry) => entry.title === section.title);
    if (at >= 0) {
      existing[at] = { title: section.title, text };
      continue;
    }
    let insertAt = 0;
    const before = order.slice(0, Math.max(0, order.indexOf(section.title))).reverse();
    for (const title of before) {
      const index = existing.findIndex((entry) => entry.title === title);
      if (index >= 0) {
        insertAt = index + 1;
        break;
      }
    }
    existing.splice(insertAt, 0, { title: section.title, text });
  }
  return `${preamble}${existing.map((entry) => entry.text).join('')}`.replace(/\n+$/, '\n');
}
