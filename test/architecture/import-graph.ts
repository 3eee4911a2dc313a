// The import graph of a source tree, read as text by TypeScript's pre-processor (values, types,
// re-exports and `import()` alike), and the cycles in it: between files, and between folders.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** File → the files of the tree it imports (relative specifiers only; packages are not nodes). */
export type ImportGraph = Map<string, Array<{ to: string; specifier: string }>>;

/** Every .ts file under `root`, by its path relative to `root` with `/` separators. */
export function readImportGraph(root: string): ImportGraph {
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => name.split(sep).join('/'))
    .sort();
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const edges = importedFiles
      .filter(({ fileName }) => fileName.startsWith('.'))
      .flatMap(({ fileName }) => {
        const to = resolve(root, file, fileName);
        return to === undefined ? [] : [{ to, specifier: fileName }];
      });
    graph.set(file, edges);
  }
  return graph;
}

/** `./x.js` from `dir/a.ts` as `dir/x.ts` (or `dir/x/index.ts`), if that file is in the tree. */
function resolve(root: string, from: string, specifier: string): string | undefined {
  const base = relative(root, join(root, dirname(from), specifier))
    .split(sep)
    .join('/');
  const stem = base.replace(/\.(js|ts)$/, '');
  for (const candidate of [`${stem}.ts`, `${stem}/index.ts`]) {
    if (existsSync(join(root, candidate))) return candidate;
  }
  return undefined;
}

/** The folder a file belongs to: its top-level folder, or the file itself when it is at the top. */
export function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : `${file.slice(0, slash)}/`;
}

/**
 * Each cycle, as its members (sorted) and the imports between them that close it, one example
 * per pair: `commands/ → listeners/ (commands/registry.ts imports listeners/commands/zones.ts)`.
 */
export interface Cycle {
  members: string[];
  imports: string[];
}

/** The cycles among files (`by` = identity) or among the groups `by` puts them in. */
export function importCycles(graph: ImportGraph, by: (file: string) => string): Cycle[] {
  const edges = new Map<string, Map<string, string>>();
  for (const [file, imports] of graph) {
    const from = by(file);
    const out = edges.get(from) ?? new Map<string, string>();
    edges.set(from, out);
    for (const { to: target } of imports) {
      const to = by(target);
      if (to !== from && !out.has(to)) out.set(to, `${file} imports ${target}`);
    }
  }
  return stronglyConnected(edges)
    .filter((members) => members.length > 1)
    .map((members) => {
      const inside = new Set(members);
      const imports = members.flatMap((from) =>
        [...(edges.get(from) ?? [])]
          .filter(([to]) => inside.has(to))
          .map(([to, example]) => `${from} → ${to} (${example})`),
      );
      return { members: members.sort(), imports: imports.sort() };
    })
    .sort((a, b) => (a.members[0] ?? '').localeCompare(b.members[0] ?? ''));
}

/** Tarjan's strongly connected components of a directed graph. */
function stronglyConnected(edges: Map<string, Map<string, string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    components.push(component);
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return components;
}
