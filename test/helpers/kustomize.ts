// Renders a kustomization as `kubectl kustomize` does, for the features deploy/kubernetes uses and
// no others (anything else is refused): `resources` (files of one or more documents, and folders
// holding a kustomization) and `patches` given inline as JSON 6902 operations (add, replace, remove)
// aimed at one kind and name. So the deploy tests run where kustomize is not installed;
// test/deploy.test.ts compares it with `kubectl kustomize` where kubectl is.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

export interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field by the tests
  spec?: any;
}

interface JsonPatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

const KUSTOMIZATION_FIELDS = new Set(['apiVersion', 'kind', 'resources', 'patches']);
const PATCH_FIELDS = new Set(['target', 'patch']);
const TARGET_FIELDS = new Set(['kind', 'name']);

function refuseOthers(where: string, fields: object, known: Set<string>): void {
  for (const field of Object.keys(fields)) {
    if (!known.has(field)) throw new Error(`${where}: ${field} is not rendered by this helper`);
  }
}

/** The resources `folder`'s kustomization.yaml produces, in the order it lists them. */
export function kustomize(folder: string): Resource[] {
  const file = join(folder, 'kustomization.yaml');
  const kustomization = parse(readFileSync(file, 'utf8')) as {
    kind?: string;
    resources?: string[];
    patches?: { target: { kind: string; name: string }; patch: string }[];
  };
  refuseOthers(file, kustomization, KUSTOMIZATION_FIELDS);
  if (kustomization.kind !== 'Kustomization') throw new Error(`${file}: not a Kustomization`);
  const resources = (kustomization.resources ?? []).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return kustomize(path);
    return parseAllDocuments(readFileSync(path, 'utf8'))
      .map((document) => document.toJS() as Resource | null)
      .filter((resource): resource is Resource => resource !== null);
  });
  const ids = resources.map((r) => `${r.kind}/${r.metadata.name}`);
  const twice = ids.find((id, index) => ids.indexOf(id) !== index);
  if (twice) throw new Error(`${file}: ${twice} appears twice`);
  for (const patch of kustomization.patches ?? []) {
    refuseOthers(file, patch, PATCH_FIELDS);
    refuseOthers(file, patch.target, TARGET_FIELDS);
    const operations = parse(patch.patch) as JsonPatchOperation[];
    if (!Array.isArray(operations)) throw new Error(`${file}: only JSON 6902 patches are rendered`);
    const targets = resources.filter(
      (r) => r.kind === patch.target.kind && r.metadata.name === patch.target.name,
    );
    if (targets.length === 0) throw new Error(`${file}: no ${JSON.stringify(patch.target)}`);
    for (const target of targets) for (const operation of operations) apply(target, operation);
  }
  return resources;
}

/** One RFC 6902 operation, in place. */
function apply(document: object, { op, path, value }: JsonPatchOperation): void {
  const keys = path
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  const last = keys.pop();
  if (last === undefined) throw new Error(`${path}: the whole document cannot be patched`);
  let parent: unknown = document;
  for (const key of keys) {
    parent = (parent as Record<string, unknown>)?.[key];
    if (typeof parent !== 'object' || parent === null) throw new Error(`${path}: no such path`);
  }
  const copy = structuredClone(value);
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    const inRange = Number.isInteger(index) && index >= 0 && index <= parent.length;
    if (!inRange || (op !== 'add' && index === parent.length)) {
      throw new Error(`${path}: index out of range`);
    }
    if (op === 'add') parent.splice(index, 0, copy);
    else if (op === 'replace') parent[index] = copy;
    else if (op === 'remove') parent.splice(index, 1);
    else throw new Error(`${path}: op ${op} is not rendered by this helper`);
    return;
  }
  const object = parent as Record<string, unknown>;
  if (op !== 'add' && !(last in object)) throw new Error(`${path}: no such path`);
  if (op === 'add' || op === 'replace') object[last] = copy;
  else if (op === 'remove') delete object[last];
  else throw new Error(`${path}: op ${op} is not rendered by this helper`);
}
