// The deployment files hold to what docs/deploy.md says of them: a multi-stage image that runs as
// a non-root user with a /livez health check; compose with PostgreSQL and two Socket Mode replicas;
// Kubernetes probes, grace and disruption budget, and the HTTP variant's patch hitting BOT_MODE.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';

const read = (path: string) => readFileSync(path, 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: YAML documents are checked field by field below
const yaml = (path: string): any => parse(read(path));

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  /** A stage's FROM line, as the Dockerfile writes it (the base image is an ARG). */
  const from = (stage: string) => `FROM $\{NODE_IMAGE} AS ${stage}`;
  const stages = lines.filter((line) => line.startsWith('FROM '));
  const runtime = lines.slice(lines.findIndex((line) => line.startsWith(from('runtime'))));

  it('builds in one stage and runs from another, on Node 24', () => {
    expect(stages).toEqual([from('build'), from('runtime')]);
    expect(lines).toContain('ARG NODE_IMAGE=node:24-bookworm-slim');
    // The runtime stage installs no packages from npm and no compilers: it copies the build's.
    expect(runtime.join('\n')).not.toMatch(/npm (ci|install)|build-essential|-dev\b/);
    expect(runtime).toContain('COPY --from=build /app/node_modules ./node_modules');
    expect(lines.join('\n')).toMatch(/npm prune --omit=dev/);
  });

  it('runs as a non-root user, checks /livez, and stops on SIGTERM', () => {
    expect(runtime).toContain('USER node');
    expect(runtime.join('\n')).toMatch(/HEALTHCHECK [^\n]*\n[^\n]*\/livez/);
    expect(runtime).toContain('STOPSIGNAL SIGTERM');
    expect(runtime.at(-1)).toBe('CMD ["node", "dist/main.js"]');
  });

  it('sends only what the build needs (.dockerignore)', () => {
    expect(
      read('.dockerignore')
        .split('\n')
        .filter((l) => l && !l.startsWith('#')),
    ).toEqual([
      '*',
      '!package.json',
      '!package-lock.json',
      '!tsconfig.json',
      '!tsconfig.build.json',
      '!src',
    ]);
  });
});

describe('compose.yaml', () => {
  const compose = yaml('compose.yaml');

  it('runs PostgreSQL and two bot replicas in Socket Mode, secrets from .env', () => {
    expect(compose.services.db.image).toMatch(/^postgres:/);
    const bot = compose.services.bot;
    expect(bot.deploy.replicas).toBe(2);
    expect(bot.env_file).toBe('.env');
    expect(bot.environment.BOT_MODE).toBe('socket');
    expect(bot.environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@db:5432\//);
    // Socket Mode needs no public port.
    expect(bot.ports).toBeUndefined();
    expect(bot.depends_on.db.condition).toBe('service_healthy');
  });
});

describe('deploy/kubernetes', () => {
  const deployment = yaml('deploy/kubernetes/deployment.yaml');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;

  it('probes /livez and /readyz, and gives a stop more time than SHUTDOWN_TIMEOUT_MS', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/livez');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    const env = Object.fromEntries(
      container.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    );
    const shutdownMs = Number(env.SHUTDOWN_TIMEOUT_MS);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(shutdownMs + 5_000);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'cdn-chatops' } }]);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });

  it('keeps one replica through voluntary disruptions', () => {
    const pdb = yaml('deploy/kubernetes/pdb.yaml');
    expect(pdb.kind).toBe('PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
  });

  it('has an HTTP variant whose patch turns BOT_MODE to http, behind a Service and an Ingress', () => {
    const overlay = yaml('deploy/kubernetes/http/kustomization.yaml');
    expect(overlay.resources).toEqual(['../', 'service.yaml', 'ingress.yaml']);
    const [patch] = parse(overlay.patches[0].patch);
    expect(patch.path).toBe('/spec/template/spec/containers/0/env/0');
    expect(container.env[0].name).toBe('BOT_MODE');
    expect(patch.value).toEqual({ name: 'BOT_MODE', value: 'http' });
    expect(yaml('deploy/kubernetes/http/service.yaml').kind).toBe('Service');
    const ingress = yaml('deploy/kubernetes/http/ingress.yaml');
    expect(ingress.spec.rules[0].http.paths[0].path).toBe('/slack/');
  });

  it('names in its Secret example only variables the config knows, in a valid shape', () => {
    const [secret] = parseAllDocuments(read('deploy/kubernetes/secret.example.yaml')).map((d) =>
      d.toJS(),
    );
    const names = Object.keys(secret.stringData);
    const envExample = read('.env.example');
    for (const name of names) expect(envExample).toContain(`${name}=`);
    expect(() =>
      loadConfig({ ...secret.stringData, ENCRYPTION_KEYS: '', BOT_MODE: 'socket' }),
    ).not.toThrow();
  });
});

describe('the image', () => {
  const { version } = JSON.parse(read('package.json')) as { version: string };
  /** The one tag every file names: the Dockerfile's build, at package.json's version. */
  const image = `cdn-chatops:${version}`;
  /** Every `docker build -t <name>` the docs and the Dockerfile tell a person to run. */
  const builds = ['docs/deploy.md', 'Dockerfile', 'README.md'].flatMap((path) =>
    [...read(path).matchAll(/docker build (?:[^\n]*?)-t (\S+)/g)].map((m) => ({ path, tag: m[1] })),
  );

  it('is built as the docs say, under the tag deploy/ and compose run', () => {
    expect(builds.length).toBeGreaterThan(0);
    for (const build of builds) expect(build, build.path).toEqual({ path: build.path, tag: image });
    const deployment = yaml('deploy/kubernetes/deployment.yaml');
    expect(deployment.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual(
      [image],
    );
    expect(yaml('compose.yaml').services.bot.image).toBe(image);
  });

  it('is named nowhere in deploy/ by a placeholder', () => {
    const files = ['deploy/kubernetes/deployment.yaml', 'compose.yaml'];
    for (const path of files) expect(read(path), path).not.toMatch(/your-org|<owner>|:latest\b/);
  });
});
