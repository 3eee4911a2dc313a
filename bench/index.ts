// `npm run bench`: runs every suite and writes docs/benchmarks.md.
import { writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { ackLatencyBench } from './ack-latency.js';
import { chartsBench } from './charts.js';
import { purgeBench } from './purge.js';
import { reportsBench } from './reports.js';
import type { Section } from './stats.js';

// Charts first: its memory measurement wants a process the other suites have not filled yet.
const suites: Array<[string, () => Promise<Section>]> = [
  ['charts', chartsBench],
  ['purge', purgeBench],
  ['ack-latency', ackLatencyBench],
  ['reports', reportsBench],
];

const only = process.argv[2];
const sections: Section[] = [];
for (const [name, run] of suites) {
  if (only && name !== only) continue;
  process.stdout.write(`bench: ${name}…\n`);
  const section = await run();
  process.stdout.write(`${section.body}\n\n`);
  sections.push(section);
}

if (!only) {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
  const document = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)} (${machine}). ` +
      'Each suite measures the project beside a bare baseline in the same run, so the ratio ' +
      'matters more than the absolute times.',
    '',
    ...sections.flatMap((section) => [`## ${section.title}`, '', section.body, '']),
  ].join('\n');
  await writeFile(new URL('../docs/benchmarks.md', import.meta.url), document);
  process.stdout.write('bench: wrote docs/benchmarks.md\n');
}
