// The local console: the real app behind a custom receiver, an in-process fake Slack with a
// pretend workspace, and (without a CDN of one's own) the embedded sandbox. Lines come from a
// terminal or a pipe (`npm start < docs/demo.txt`).
import { createInterface } from 'node:readline';
import type { App } from '@slack/bolt';
import { buildApp } from '../../app.js';
import type { CdnTransport } from '../../cdn/transport.js';
import type { ChartRenderer } from '../../charts/traffic-chart.js';
import { type Clock, systemClock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { AppDeps } from '../../deps.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/index.js';
import { type FakeSlack, startFakeSlack } from '../fake-slack/server.js';
import { type SandboxEdge, startSandboxEdge } from '../sandbox/edge.js';
import {
  SANDBOX_DEMO_KEY,
  type Sandbox,
  type SandboxSnapshot,
  startSandbox,
} from '../sandbox/server.js';
import { keepSandboxInFile } from '../sandbox/state-file.js';
import { ConsoleReceiver } from './receiver.js';
import { ConsoleSession } from './session.js';
import { CONSOLE_BOT_TOKEN, CONSOLE_CHANNEL, CONSOLE_TEAM_ID, seedWorld } from './world.js';

/**
 * The key of the sandbox's second CDN account (`/cdn accounts` → Add an account): it sees zones of
 * its own, one of them named as a zone of the demo key's, so `<account>/<zone>` has work to do.
 */
export const SANDBOX_STAGING_KEY = 'sandbox-staging-key';
/** The zones the second account holds: static.example.com is also the demo key's. */
export const SANDBOX_STAGING_ZONES = ['static.example.com', 'staging.example.com'];

/** What a zone's CNAME points at when the sandbox stands in for the CDN. */
export const SANDBOX_EDGE_CNAME = 'edge.sandbox-cdn.localhost';

export interface ConsoleOptions {
  config: Config;
  store: Store;
  transport: CdnTransport;
  logger: Logger;
  clock?: Clock;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Where charts are written. */
  outDir: string;
  /** The database file the store is in, named in the banner (the process entry passes it). */
  database?: string;
  /**
   * Where the embedded sandbox's state is kept (written after each change), and the state to start
   * from (read there by consoleData, data.ts); absent, the sandbox lives in memory only.
   */
  sandboxState?: { file: string; snapshot?: SandboxSnapshot };
  /** A line the banner ends with (what was reset at start, say). */
  notice?: string;
  /** The pretend users' time zone; the machine's by default. */
  timeZone?: string;
  /** A terminal (prompt, line editing) or a pipe (lines echoed). Default: whether input is a TTY. */
  interactive?: boolean;
  chartRenderer?: ChartRenderer;
}

export interface RunningConsole {
  app: App;
  deps: AppDeps;
  slack: FakeSlack;
  /** The embedded CDN sandbox, unless CDN_API_BASE_URL names a CDN. */
  sandbox: Sandbox | undefined;
  /** The sandbox's edge, which purge verification asks (with the sandbox only). */
  edge: SandboxEdge | undefined;
  session: ConsoleSession;
  /** Reads lines until the input ends or /quit; resolves when the last one is handled. */
  run(): Promise<void>;
  close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const { config, store, logger } = options;
  const clock = options.clock ?? systemClock;
  const timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const interactive = options.interactive ?? (options.input as { isTTY?: boolean }).isTTY === true;
  // Without a CDN of its own, the console brings the sandbox so everything works offline.
  const sandbox: Sandbox | undefined = config.cdn.baseUrl
    ? undefined
    : await startSandbox({
        clock,
        apiKeys: [SANDBOX_DEMO_KEY],
        accounts: { [SANDBOX_STAGING_KEY]: { zones: SANDBOX_STAGING_ZONES } },
      });
  // Its zones as the console's database last knew them, kept beside it from now on.
  const kept = options.sandboxState;
  if (sandbox && kept?.snapshot) sandbox.restore(kept.snapshot);
  const stopKeeping = sandbox && kept ? keepSandboxInFile(sandbox, kept.file) : undefined;
  // Its edge, serving every account's zones: each purged URL verified is asked here, whatever its
  // host (a development route).
  const edge = sandbox ? await startSandboxEdge(sandbox.states, { clock }) : undefined;
  const slack = await startFakeSlack({
    clock,
    teamId: CONSOLE_TEAM_ID,
    botToken: CONSOLE_BOT_TOKEN,
    // Slack's one post a second per channel, on the wall clock (a test's manual clock stands still).
    channelRateLimit: clock === systemClock,
  });
  seedWorld(slack, timeZone);
  const receiver = new ConsoleReceiver();
  const { app, deps } = buildApp({
    // Slack is the fake one, with the console's bot token; no OAuth, no signing.
    config: {
      ...config,
      slack: { apiUrl: slack.apiUrl, botToken: CONSOLE_BOT_TOKEN },
      watch: { ...config.watch, intervalMs: Math.min(config.watch.intervalMs, 10_000) },
    },
    store,
    transport: options.transport,
    clock,
    logger,
    cdnBaseUrl: config.cdn.baseUrl ?? sandbox?.baseUrl ?? '',
    edgeCnameTarget: config.cdn.edgeCnameTarget ?? SANDBOX_EDGE_CNAME,
    receiver,
    ...(options.chartRenderer ? { chartRenderer: options.chartRenderer } : {}),
    // The sandbox edge drops a purged copy at once: --verify asks it without waiting.
    ...(edge ? { edgeProbe: { edgeAddress: edge.address }, verifyDelayMs: 0 } : {}),
  });
  await app.init();
  // The background work (purges as durable jobs, watch evaluation…) is started by the caller, once.

  const output = options.output;
  let rl: ReturnType<typeof createInterface> | undefined;
  let busy = false;
  const print = (text: string) => {
    if (interactive && rl && !busy) {
      // Something arrived while the prompt waits (a follow-up): print above it, then redraw it.
      output.write(`\r\u001b[K${text}\n`);
      rl.prompt(true);
      return;
    }
    output.write(`${text}\n`);
  };
  const session = new ConsoleSession({
    slack,
    receiver,
    outDir: options.outDir,
    print,
    ...(sandbox ? { sandbox } : {}),
  });
  const hasKey = (await store.credentials.status(CONSOLE_TEAM_ID)) !== undefined;
  print(
    [
      'cdn-chatops console: the bot as in Slack, with a pretend workspace and, unless',
      'CDN_API_BASE_URL is set, an embedded CDN sandbox. /help lists console commands.',
      `You are alice (workspace admin) in #${CONSOLE_CHANNEL.name}; bob and carol are members, grace and sam guests (/as bob).`,
      hasKey
        ? 'A CDN API key is already set (from an earlier run). Try /cdn zones.'
        : sandbox
          ? `Start with /cdn login and the sandbox's demo key: ${SANDBOX_DEMO_KEY}`
          : 'Start with /cdn login and your CDN API key.',
      ...(sandbox
        ? [
            `A second CDN account (/cdn accounts, Add an account): name staging, the base URL left empty (the sandbox), key ${SANDBOX_STAGING_KEY}`,
          ]
        : []),
      `Charts are written to ${options.outDir}/.`,
      ...(options.database
        ? [
            `Data is kept in ${options.database}, the console's own database (DATABASE_URL is not used).`,
          ]
        : []),
      ...(options.notice ? [options.notice] : []),
    ].join('\n'),
  );

  return {
    app,
    deps,
    slack,
    sandbox,
    edge,
    session,
    async run() {
      rl = createInterface({
        input: options.input,
        crlfDelay: Number.POSITIVE_INFINITY,
        ...(interactive ? { output, terminal: true } : { terminal: false }),
      });
      rl.on('SIGINT', () => rl?.close());
      const prompt = () => {
        rl?.setPrompt(session.prompt());
        if (interactive) rl?.prompt();
      };
      prompt();
      for await (const line of rl) {
        if (!interactive) {
          output.write(
            `${session.prompt()}${session.answeringSecret && line ? '••••••••' : line}\n`,
          );
        }
        busy = true;
        const result = await session.handle(line);
        // Work the line started as a job (a purge) shows its messages before the next prompt.
        await deps.runner.settled();
        busy = false;
        if (result === 'quit') break;
        prompt();
      }
      rl.close();
    },
    async close() {
      rl?.close();
      await app.stop();
      await slack.close();
      await edge?.close();
      stopKeeping?.();
      await sandbox?.close();
    },
  };
}
