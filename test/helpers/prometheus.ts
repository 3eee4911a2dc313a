// A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every line
// must be empty, a HELP, a TYPE or a sample of the grammar; each family is declared once, before its
// samples, which stay together; no series twice; histograms have cumulative buckets ending in +Inf
// that equal their _count. Throws on the first line that breaks a rule, naming it.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, `x_count` for a histogram `x`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
// A label value: any characters but an unescaped quote, backslash or newline.
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
// Prometheus reads a value with Go's strconv.ParseFloat, which takes NaN and Inf in any case:
// prom-client writes a gauge with no samples yet (the event loop's lag mean) as `Nan`.
const VALUE = '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?[iI][nN][fF]|[nN][aA][nN]';
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (${VALUE})(?: (-?\\d+))?$`,
);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_PAIR = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g');

function unescapeLabel(quoted: string): string {
  return quoted.slice(1, -1).replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(text: string): number {
  if (/^[-+]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return Number.NaN;
  return Number(text);
}

/** The family a sample belongs to: `x_bucket` of histogram `x`, `x` itself otherwise. */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(sample);
  if (direct) return direct;
  const match = /^(.*)_(bucket|sum|count)$/.exec(sample);
  const base = match?.[1] && families.get(match[1]);
  return base && (base.type === 'histogram' || base.type === 'summary') ? base : undefined;
}

export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  let current: Family | undefined;
  const lines = text.slice(0, -1).split('\n');
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1} (${JSON.stringify(line)})`;
    // The format ignores empty lines (prom-client puts one between families).
    if (line === '') continue;
    const help = HELP.exec(line);
    const type = TYPE.exec(line);
    if (help || type) {
      const name = (help ?? type)?.[1] ?? '';
      let family = families.get(name);
      if (family && family !== current) throw new Error(`${where}: ${name} declared twice`);
      if (!family) {
        family = { name, type: 'untyped', help: '', samples: [] };
        families.set(name, family);
        current = family;
      }
      if (family.samples.length > 0) throw new Error(`${where}: ${name} declared after samples`);
      if (help) family.help = help[2] ?? '';
      if (type) family.type = (type[2] ?? 'untyped') as MetricType;
      continue;
    }
    if (line.startsWith('#')) throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`${where}: not a sample`);
    const [, name = '', labelText = '', valueText = ''] = sample;
    const family = familyOf(name, families);
    if (!family) throw new Error(`${where}: ${name} has no TYPE before it`);
    if (family !== current) throw new Error(`${where}: ${name} is apart from its family`);
    const labels: Record<string, string> = {};
    for (const [, key = '', quoted = ''] of labelText.matchAll(LABEL_PAIR)) {
      if (key in labels) throw new Error(`${where}: label ${key} twice`);
      labels[key] = unescapeLabel(quoted);
    }
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`${where}: the same series twice`);
    seen.add(series);
    if (family.type === 'histogram' && name === `${family.name}_bucket` && !('le' in labels))
      throw new Error(`${where}: a bucket without le`);
    if (family.type === 'counter' && name !== family.name && name !== `${family.name}_total`)
      throw new Error(`${where}: a counter sample named apart from its family`);
    family.samples.push({ name, labels, value: parseValue(valueText) });
  }
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** Buckets cumulative and ending in +Inf, which equals _count, for each series of labels. */
function checkHistogram(family: Family): void {
  const series = new Map<string, Sample[]>();
  const keyOf = (labels: Record<string, string>) => {
    const { le: _le, ...rest } = labels;
    return JSON.stringify(Object.entries(rest).sort());
  };
  for (const sample of family.samples) {
    const key = keyOf(sample.labels);
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const [key, samples] of series) {
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    const where = `${family.name}${key}`;
    if (buckets.length === 0 || !count) throw new Error(`${where}: buckets or _count missing`);
    let previous = -Infinity;
    let last = 0;
    for (const bucket of buckets) {
      const le = parseValue(bucket.labels.le ?? '');
      if (!(le > previous)) throw new Error(`${where}: le not increasing`);
      if (bucket.value < last) throw new Error(`${where}: buckets not cumulative`);
      previous = le;
      last = bucket.value;
    }
    if (previous !== Infinity) throw new Error(`${where}: no +Inf bucket`);
    if (last !== count.value) throw new Error(`${where}: +Inf bucket is not _count`);
  }
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function sumOf(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number {
  let total = 0;
  for (const family of families.values()) {
    for (const sample of family.samples) {
      if (sample.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => sample.labels[k] === v)) total += sample.value;
    }
  }
  return total;
}
