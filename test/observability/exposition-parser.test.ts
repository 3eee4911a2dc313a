// The strict exposition parser the metrics tests rely on refuses what the format does not allow,
// so a /metrics that broke the format would fail those tests.
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../helpers/prometheus.js';

const GOOD = `# HELP x_total Things.
# TYPE x_total counter
x_total{a="1",b="q\\"uote"} 3

# HELP h Latency.
# TYPE h histogram
h_bucket{le="0.1"} 1
h_bucket{le="+Inf"} 2
h_sum 0.3
h_count 2
`;

describe('parseExposition', () => {
  it('reads a well-formed exposition', () => {
    const families = parseExposition(GOOD);
    expect(families.get('x_total')?.samples).toEqual([
      { name: 'x_total', labels: { a: '1', b: 'q"uote' }, value: 3 },
    ]);
    expect(families.get('h')?.type).toBe('histogram');
  });

  it('reads NaN and Inf in any case, as Prometheus does (prom-client writes "Nan")', () => {
    const text = '# TYPE g gauge\ng{k="a"} Nan\ng{k="b"} NaN\ng{k="c"} -inf\n';
    const values = parseExposition(text)
      .get('g')
      ?.samples.map((s) => s.value);
    expect(values).toEqual([Number.NaN, Number.NaN, -Infinity]);
  });

  it.each([
    ['no final newline', GOOD.trimEnd()],
    ['a sample before its TYPE', `y 1\n${GOOD}`],
    ['a bad metric name', GOOD.replace('x_total{', 'x-total{')],
    ['an unquoted label value', GOOD.replace('a="1"', 'a=1')],
    ['a bad value', GOOD.replace('} 3', '} three')],
    ['a word that only starts like NaN', GOOD.replace('} 3', '} nano')],
    ['a series twice', GOOD.replace('x_total{a="1",b="q\\"uote"} 3', 'x_total 1\nx_total 2')],
    ['buckets not cumulative', GOOD.replace('h_bucket{le="+Inf"} 2', 'h_bucket{le="+Inf"} 0')],
    ['+Inf apart from _count', GOOD.replace('h_count 2', 'h_count 5')],
    ['no +Inf bucket', GOOD.replace('h_bucket{le="+Inf"} 2\n', '')],
    ['a stray comment', GOOD.replace('# HELP h Latency.', '# hello')],
    ['a family declared twice', `${GOOD}# TYPE x_total counter\n`],
  ])('refuses %s', (_what, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});
