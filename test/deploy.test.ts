// The deployment files hold to what docs/deploy.md says of them: a multi-stage image that runs as
// a non-root user with a /livez health check; compose with PostgreSQL and two Socket Mode replicas;
// Kubernetes rendered as `kubectl apply -k` applies it, in both modes: probes, grace, disruption
// budget, the Ingress's paths followed to the bot's ports (the HTTP API in both, Slack's in HTTP
// mode), the NetworkPolicy and the ServiceMonitor on the same ports and labels.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';
import { kustomize, type Resource } from './helpers/kustomize.js';

const read = (path: string) => readFileSync(path, 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: YAML documents are checked field by field below
const yaml = (path: string): any => parse(read(path));
// biome-ignore lint/suspicious/noExplicitAny: as above
const secretExample = (): any => parse(read('deploy/kubernetes/secret.example.yaml'));
/** Whether `kubectl kustomize` can check the renderer the tests use. */
const kubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

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
  /** Each mode as `kubectl apply -k` applies it. */
  const modes = {
    socket: kustomize('deploy/kubernetes/base'),
    http: kustomize('deploy/kubernetes/http'),
  };
  const only = (resources: Resource[], kind: string): Resource => {
    const found = resources.filter((r) => r.kind === kind);
    expect(found.map((r) => r.metadata.name)).toEqual(['cdn-chatops']);
    return found[0] as Resource;
  };
  const deployment = only(modes.socket, 'Deployment');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  const envOf = (c: { env: { name: string; value: string }[] }) =>
    Object.fromEntries(c.env.map((e) => [e.name, e.value]));

  it.skipIf(!kubectl)('renders as kubectl kustomize renders it', () => {
    for (const folder of ['base', 'http', 'monitoring']) {
      const path = `deploy/kubernetes/${folder}`;
      const output = execFileSync('kubectl', ['kustomize', path], { encoding: 'utf8' });
      const byId = (resources: Resource[]) =>
        Object.fromEntries(resources.map((r) => [`${r.kind}/${r.metadata.name}`, r]));
      const rendered = parseAllDocuments(output).map((d) => d.toJS() as Resource);
      expect(byId(kustomize(path)), path).toEqual(byId(rendered));
    }
  });

  it('probes /livez and /readyz, and gives a stop more time than SHUTDOWN_TIMEOUT_MS', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/livez');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    const shutdownMs = Number(envOf(container).SHUTDOWN_TIMEOUT_MS);
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(shutdownMs + 5_000);
    expect(container.envFrom).toEqual([{ secretRef: { name: 'cdn-chatops' } }]);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });

  it('keeps one replica through voluntary disruptions', () => {
    const pdb = only(modes.socket, 'PodDisruptionBudget');
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
  });

  it('has an HTTP variant that runs BOT_MODE=http, listening 5 s into a stop', () => {
    const http = only(modes.http, 'Deployment');
    const [bot] = http.spec.template.spec.containers;
    expect(envOf(container).BOT_MODE).toBe('socket');
    expect(envOf(bot).BOT_MODE).toBe('http');
    expect(bot.lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
    expect(http.spec.template.spec.terminationGracePeriodSeconds).toBe(35);
    // Nothing else differs from Socket Mode's Deployment.
    const { env: _e, lifecycle: _l, ...rest } = bot;
    const { env: _f, ...socketRest } = container;
    expect(rest).toEqual(socketRest);
  });

  describe.each(Object.keys(modes) as (keyof typeof modes)[])('in %s mode', (mode) => {
    const resources = modes[mode];
    const bot = only(resources, 'Deployment');
    const [botContainer] = bot.spec.template.spec.containers;
    const service = only(resources, 'Service');
    const ingress = only(resources, 'Ingress');
    /** The container port a Service port (by name) sends to. */
    const containerPort = (servicePort: string): number => {
      const port = service.spec.ports.find((p: { name: string }) => p.name === servicePort);
      expect(port, servicePort).toBeDefined();
      const target = botContainer.ports.find((p: { name: string }) => p.name === port.targetPort);
      expect(target, port.targetPort).toBeDefined();
      return target.containerPort;
    };
    /** The container port the Ingress sends `path` to. */
    const routed = (path: string, pathType = 'Prefix'): number | undefined => {
      const rule = ingress.spec.rules[0].http.paths.find((p: { path: string }) => p.path === path);
      if (!rule) return undefined;
      expect(rule.pathType).toBe(pathType);
      expect(rule.backend.service.name).toBe(service.metadata.name);
      return containerPort(rule.backend.service.port.name);
    };

    it('routes /api/v1 (the HTTP API, served on PORT in both modes) to the bot, and Slack’s paths and the pages in HTTP mode', () => {
      expect(envOf(botContainer).BOT_MODE).toBe(mode);
      expect(service.spec.selector).toEqual(bot.spec.template.metadata.labels);
      expect(routed('/api/v1')).toBe(Number(envOf(botContainer).PORT));
      // Slack's paths only where Slack sends requests.
      expect(routed('/slack/')).toBe(
        mode === 'http' ? Number(envOf(botContainer).PORT) : undefined,
      );
      // The Marketplace's pages (a listing is an HTTP app), and nothing else of PORT.
      for (const page of ['/privacy', '/support']) {
        expect(routed(page, 'Exact'), page).toBe(
          mode === 'http' ? Number(envOf(botContainer).PORT) : undefined,
        );
      }
      expect(ingress.spec.tls[0].hosts).toContain(ingress.spec.rules[0].host);
      // /metrics is not public.
      const paths = ingress.spec.rules[0].http.paths.map((p: { path: string }) => p.path);
      expect(paths.sort()).toEqual(
        mode === 'http' ? ['/api/v1', '/privacy', '/slack/', '/support'] : ['/api/v1'],
      );
    });

    it('lets in only the ingress controller to PORT and monitoring to METRICS_PORT', () => {
      const policy = only(resources, 'NetworkPolicy');
      expect(policy.spec.podSelector.matchLabels).toEqual(bot.spec.template.metadata.labels);
      expect(policy.spec.policyTypes).toEqual(['Ingress', 'Egress']);
      const env = envOf(botContainer);
      const allowed = policy.spec.ingress.map(
        (rule: {
          from: { namespaceSelector: { matchLabels: object } }[];
          ports: { port: string }[];
        }) => ({
          from: rule.from.map((f) => f.namespaceSelector.matchLabels),
          ports: rule.ports.map(
            (p) =>
              botContainer.ports.find((c: { name: string }) => c.name === p.port)?.containerPort,
          ),
        }),
      );
      expect(ingress.spec.ingressClassName).toBe('nginx');
      expect(allowed).toEqual([
        { from: [{ 'kubernetes.io/metadata.name': 'ingress-nginx' }], ports: [Number(env.PORT)] },
        {
          from: [{ 'kubernetes.io/metadata.name': 'monitoring' }],
          ports: [Number(env.METRICS_PORT)],
        },
      ]);
      const egress = policy.spec.egress.flatMap((rule: { ports: object[] }) => rule.ports);
      for (const port of [
        { protocol: 'UDP', port: 53 },
        { protocol: 'TCP', port: 53 },
        { protocol: 'TCP', port: 443 },
        { protocol: 'TCP', port: 5432 },
      ]) {
        expect(egress).toContainEqual(port);
      }
      // DNS goes to the cluster's resolver only.
      expect(policy.spec.egress[0].to[0].podSelector.matchLabels).toEqual({
        'k8s-app': 'kube-dns',
      });
    });

    it('is scraped by the ServiceMonitor on METRICS_PORT, with METRICS_TOKEN from the Secret', () => {
      const monitoring = kustomize('deploy/kubernetes/monitoring');
      const monitor = only(monitoring, 'ServiceMonitor');
      expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
      expect(only(monitoring, 'PrometheusRule').apiVersion).toBe('monitoring.coreos.com/v1');
      for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels)) {
        expect(service.metadata.labels?.[label]).toBe(value);
      }
      const [endpoint] = monitor.spec.endpoints;
      expect(endpoint.path).toBe('/metrics');
      expect(containerPort(endpoint.port)).toBe(Number(envOf(botContainer).METRICS_PORT));
      expect(endpoint.authorization.credentials).toEqual({
        name: botContainer.envFrom[0].secretRef.name,
        key: 'METRICS_TOKEN',
      });
      expect(secretExample().stringData).toHaveProperty('METRICS_TOKEN');
    });
  });

  it('names in its Secret example only variables the config knows, in a valid shape', () => {
    const secret = secretExample();
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
    const deployment = yaml('deploy/kubernetes/base/deployment.yaml');
    expect(deployment.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual(
      [image],
    );
    expect(yaml('compose.yaml').services.bot.image).toBe(image);
  });

  it('is built for linux/amd64 and linux/arm64 as docs/deploy.md says, under the same name', () => {
    const multi = [
      ...read('docs/deploy.md').matchAll(
        /docker buildx build --platform (\S+) -t (\S+) --push \.$/gm,
      ),
    ];
    expect(multi).toHaveLength(1);
    const [, platforms = '', tag = ''] = multi[0] ?? [];
    expect(platforms.split(',')).toEqual(['linux/amd64', 'linux/arm64']);
    expect(tag.endsWith(`/${image}`)).toBe(true);
    // No instruction of the Dockerfile names one architecture.
    const instructions = read('Dockerfile')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'));
    expect(instructions.join('\n')).not.toMatch(/amd64|arm64|x86_64|aarch64|--platform=/);
  });

  it('is named nowhere in deploy/ by a placeholder', () => {
    const files = ['deploy/kubernetes/base/deployment.yaml', 'compose.yaml'];
    for (const path of files) expect(read(path), path).not.toMatch(/your-org|<owner>|:latest\b/);
  });
});
