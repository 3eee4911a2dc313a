// `npm run bench`: runs every suite and writes docs/benchmarks.md.
// `npm run bench -- purge durable`: runs only the suites named, and replaces only their sections
// of docs/benchmarks.md (a section not there yet goes after the previous suite's); the other
// sections stay as they were written, and each replaced one says when and where it was measured.
import { readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { ackLatencyBench } from './ack-latency.js';
import { ackLoadBench } from './ack-load.js';
import { TITLE as API_LOAD_TITLE, apiLoadBench } from './api-load.js';
import { TITLE as AUDIT_EXPORT_TITLE, auditExportBench } from './audit-export.js';
import { chartsBench } from './charts.js';
import { spliceSections } from './document.js';
import { durableBench } from './durable.js';
import { purgeBench } from './purge.js';
import { reportsBench } from './reports.js';
import { TITLE as REPORTS_SCALE_TITLE, reportsScaleBench } from './reports-scale.js';
import { TITLE as RETENTION_TITLE, retentionBench } from './retention.js';
import type { Section } from './stats.js';
import { TITLE as WATCHES_TITLE, watchesBench } from './watches.js';
import { zoneIndexBench } from './zone-index.js';

// Charts first: its memory measurement wants a process the other suites have not filled yet.
const suites: Array<[string, () => Promise<Section>]> = [
  ['charts', chartsBench],
  ['purge', purgeBench],
  ['durable', durableBench],
  ['ack-latency', ackLatencyBench],
  ['ack-load', ackLoadBench],
  ['api-load', apiLoadBench],
  ['reports', reportsBench],
  ['reports-scale', reportsScaleBench],
  ['zone-index', zoneIndexBench],
  ['watches', watchesBench],
  ['retention', retentionBench],
  ['audit-export', auditExportBench],
];

/** The suites' section titles, in order: where a section new to the document goes. */
const TITLES: Record<string, string> = {
  charts: 'Traffic chart rendering',
  purge: 'Purge: 10,000 URLs',
  durable: 'Purge jobs: from a crash to the resumed job',
  'ack-latency': 'Slash-command ack latency (HTTP mode)',
  'ack-load': 'Slash-command acks under load (open loop)',
  'api-load': API_LOAD_TITLE,
  reports: 'Daily reports: 1,000 due at once',
  'reports-scale': REPORTS_SCALE_TITLE,
  'zone-index': 'Zone index: lookups, memory and modals at 10,000 zones',
  watches: WATCHES_TITLE,
  retention: RETENTION_TITLE,
  'audit-export': AUDIT_EXPORT_TITLE,
};

const DOCUMENT = new URL('../docs/benchmarks.md', import.meta.url);
const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
const today = new Date().toISOString().slice(0, 10);

const only = process.argv.slice(2);
const unknown = only.filter((name) => !suites.some(([suite]) => suite === name));
if (unknown.length > 0) {
  console.error(
    `bench: no suite ${unknown.join(', ')} (suites: ${suites.map(([n]) => n).join(', ')})`,
  );
  process.exit(2);
}

const sections: Array<{ suite: string; section: Section }> = [];
for (const [name, run] of suites) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stdout.write(`bench: ${name}…\n`);
  const section = await run();
  process.stdout.write(`${section.body}\n\n`);
  sections.push({ suite: name, section });
}

if (only.length === 0) {
  const document = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${today} (${machine}). ` +
      'Each suite measures the project beside a bare baseline in the same run, so the ratio ' +
      'matters more than the absolute times.',
    '',
    ...sections.flatMap(({ section }) => [`## ${section.title}`, '', section.body, '']),
  ].join('\n');
  await writeFile(DOCUMENT, document);
  process.stdout.write('bench: wrote docs/benchmarks.md\n');
} else {
  const note =
    `*Measured on ${today} by \`npm run bench -- ${only.join(' ')}\` (${machine}); ` +
    'the other sections are from earlier runs.*';
  const order = suites.map(([name]) => TITLES[name] ?? name);
  const document = spliceSections(
    await readFile(DOCUMENT, 'utf8'),
    sections.map(({ section }) => ({ section, note })),
    order,
  );
  await writeFile(DOCUMENT, document);
  process.stdout.write(
    `bench: wrote ${sections.map(({ section }) => `“${section.title}”`).join(', ')} in docs/benchmarks.md\n`,
  );
}
