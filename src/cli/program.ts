/** The `svc` command line: one sub-command per file in this folder; errors become exit codes here. */
import { Command, CommanderError } from 'commander';
import { ConfigError, EXIT, RuntimeError, UsageError, errorText, exitCodeFor } from '../core/errors.js';
import { packageRoot, packageVersion } from '../core/version.js';
import { join } from 'node:path';
import type { CliContext } from './context.js';
import { downCommand } from './down.js';
import { registerFleet } from './fleet/command.js';
import type { ConsoleOptions } from './console/console-command.js';
import type { ImportOptions } from './import.js';
import type { ReplayOptions } from './operate.js';
import { initCommand } from './init.js';
import { registerPageCommands } from './page-commands.js';
import { registerSilenceCommands } from './silence-commands.js';
import { registerPageViews } from './pages-view.js';
import { registerReport } from './report.js';
import { registerShadow } from './shadow/shadow-command.js';
import type { LogsOptions } from './logs.js';
import { logsCommand } from './logs.js';
import { registerOncall } from './oncall.js';
import type { PsOptions } from './ps.js';
import { psCommand } from './ps.js';
import { secretSetCommand } from './secret-set.js';
import { terminalContext } from './style.js';
import type { TriageOptions } from './triage.js';
import type { ViewOptions } from './views.js';
import { auditCommand, auditView, dlqCommand, dlqView, eventsCommand, eventsView } from './views.js';
import { webhookSendCommand } from './webhook-send.js';

function buildProgram(ctx: CliContext, setCode: (code: number) => void): Command {
  const program = new Command('svc')
    .description('svc: an agent runtime for operations teams')
    .version(packageVersion())
    .exitOverride()
    // A command's options belong to it, not to its subcommands: `svc oncall override add --schedule S`
    // gives --schedule to `add` (commander needs this on the root for a nested command to use it).
    .enablePositionalOptions()
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr })
    // Where the documentation is, checkout or installed package alike (contract §25.1).
    .addHelpText('after', `\nDocumentation: ${join(packageRoot(), 'docs')} (operations.md: running it as a service), and man svc\n`);

  program
    .command('init')
    .description('scaffold an agent from a template')
    .argument('[dir]', 'target directory (default ./<template>)')
    .requiredOption('--template <name>', 'template: alert-escalation')
    .requiredOption('--provider <name>', 'provider: rules | anthropic | openai')
    .option('--id <id>', 'agent id (default oncall-escalator); unique per $SVC_HOME')
    .option('--force', 'overwrite existing files', false)
    .option('--checkpoint-key', 'also create the audit checkpoint key (Ed25519, secret audit/checkpoint-key) and turn signed checkpoints on', false)
    .option('--port <n>', "the webhook source's port, in event-sources.yaml and alertmanager.yml (default 8787)")
    .option('--control-port <n>', "the control plane's port, in agent.yaml (default 9464)")
    .action((dir: string | undefined, opts: { template: string; provider: string; force: boolean; id?: string; checkpointKey: boolean;
      port?: string; controlPort?: string }) => {
      setCode(initCommand(dir, opts, ctx));
    });

  program
    .command('up')
    .description('run the agents of each DIR (default .) until SIGINT/SIGTERM')
    .argument('[dirs...]', 'agent directories, each holding an agent.yaml')
    .option('-d, --detach', 'run in the background; return once ready', false)
    .option('--log-format <format>', 'the daemon log on stdout: json | text', 'json')
    .option('--shadow', 'a shadow run of every agent: everything runs and is recorded, nothing is sent to anyone (docs/shadow.md)', false)
    .action(async (dirs: string[], opts: { detach: boolean; logFormat: string; shadow: boolean }) => {
      // Loaded on use: the daemon's modules (store, runtime, OTel, MCP) would add ~150 ms to every read command.
      const { upCommand } = await import('./up.js');
      setCode(await upCommand(dirs, opts, ctx));
    });

  program
    .command('check')
    .description('validate everything `svc up` would (.env, files, keys, references, TLS pairs, the store, MCP commands, '
      + 'oncall.yaml, free ports: those its own running daemon holds are fine); start nothing; exit 0, or 2 with every problem')
    .argument('[dirs...]', 'agent directories, each holding an agent.yaml')
    .option('--json', 'print {"ok", "agents", "ports", "notes", "problems"} as JSON, and "running" {pid, heldPorts} while this home\'s daemon runs', false)
    .action(async (dirs: string[], opts: { json: boolean }) => {
      const { checkCommand } = await import('./check.js');
      setCode(await checkCommand(dirs, opts, ctx));
    });

  program
    .command('import')
    .description('translate an Opsgenie, PagerDuty or Grafana OnCall export into oncall.yaml and import-report.md; '
      + 'exit 0 when everything mapped exactly, 3 when something was approximated or not mapped, 2 on unreadable input')
    .argument('<source>', 'opsgenie | pagerduty | grafana-oncall')
    .argument('<dir>', 'the saved API answers (docs/import.md), or with --api where to save them')
    .option('--out <file>', 'the oncall.yaml to write; import-report.md goes beside it', 'oncall.yaml')
    .option('--agent <id>', 'the agent the file is for (named in the override commands of the report)')
    .option('--api <url>', 'fetch the export live from this API (GET only) into DIR, instead of reading DIR')
    .option('--token-env <var>', 'with --api: the environment variable holding the API token')
    .option('--verify <dir>', 'hold svc\'s answer against the vendor\'s own rendering saved in DIR (often DIR itself); exit 1 on a difference')
    .option('--channels <map>', 'contact kind → channel id, e.g. email=mail,sms=sms,voice=phone,push=push,slack=slack-dm,telegram=tg (these are the defaults)')
    .option('--at <time>', 'judge what has ended and what is to come as of this instant (ISO-8601 with a zone; default now)')
    .option('--force', 'replace an existing oncall.yaml and import-report.md', false)
    .action(async (source: string, dir: string, opts: ImportOptions) => {
      const { importCommand } = await import('./import.js');
      setCode(await importCommand(source, dir, opts, ctx));
    });

  program
    .command('backup')
    .description('a consistent copy of the store, while the daemon runs (admin socket) or not')
    .argument('<file>', 'the new file')
    .option('--force', 'replace FILE if it exists', false)
    .option('--json', 'print {"path", "bytes", "daemon"} as JSON', false)
    .action(async (file: string, opts: { force: boolean; json: boolean }) => {
      const { backupCommand } = await import('./operate.js');
      setCode(await backupCommand(file, opts, ctx));
    });

  program
    .command('reload')
    .description('load and validate the configuration again and apply it to the running daemon (admin socket); an invalid one is refused, the old one keeps serving')
    .option('--json', 'print the daemon\'s answer as JSON', false)
    .action(async (opts: { json: boolean }) => {
      const { reloadCommand } = await import('./reload.js');
      setCode(await reloadCommand(opts, ctx));
    });

  program
    .command('down')
    .description('stop the running daemon gracefully')
    .action(async () => {
      setCode(await downCommand(ctx));
    });

  program
    .command('triage')
    .description("run the agent's triage once on an event payload; print the message it would send and the tool calls (sends nothing, stores nothing)")
    .usage('[options] [dir] <file>')
    .argument('<args...>', 'the agent directory (default .), then the payload file (JSON)')
    .option('--json', 'print the report as JSON', false)
    .action(async (args: string[], opts: TriageOptions) => {
      // Loaded on use, like `up`: providers and MCP supervision are not for the read commands to pay.
      const { triageCommand } = await import('./triage.js');
      setCode(await triageCommand(args, opts, ctx));
    });

  const webhook = program.command('webhook').description('webhook tools');
  webhook
    .command('send')
    .description("sign FILE with a source's secret and POST it to the local ingest")
    .argument('<file>', 'payload file (JSON)')
    .option('--source <id>', 'source id (default: the only source)')
    .option('--dir <dir>', 'agent directory', '.')
    .option('--fingerprint <fp>', 'idempotency key (default: derived from the body)')
    .action(async (file: string, opts: { source?: string; dir?: string; fingerprint?: string }) => {
      setCode(await webhookSendCommand(file, opts, ctx));
    });

  const secret = program.command('secret').description('local secrets under $SVC_HOME/secrets');
  secret
    .command('set')
    .description('store the value read from standard input')
    .argument('<path>', 'secret path, e.g. alert-escalation/webhook-hmac')
    .action(async (path: string) => {
      setCode(await secretSetCommand(path, ctx));
    });

  const store = program.command('store').description('the event store');
  store
    .command('copy')
    .description('copy an SQLite store (events, dead letters, audit chain, live fingerprints) into an empty PostgreSQL database')
    .requiredOption('--to <url>', 'postgres://user:password@host:port/database (e.g. "$SVC_DATABASE_URL")')
    .option('--from <file>', 'SQLite store file (default $SVC_HOME/svc.db)')
    .action(async (opts: { to: string; from?: string }) => {
      // Loaded on use: it opens both stores, pg included, which read-only commands never need.
      const { storeCopyCommand } = await import('./store-copy.js');
      setCode(await storeCopyCommand(opts, ctx));
    });

  program
    .command('ps')
    .description('show the running agents, sources, channels and MCP servers (GET /status)')
    .option('--json', 'print the status snapshot as JSON', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (opts: PsOptions) => {
      setCode(await psCommand(opts, ctx));
    });

  program
    .command('logs')
    .description('print agent log records (GET /logs); -f follows live')
    .option('-f, --follow', 'keep following new records', false)
    .option('--agent <id>', 'one agent (default: all running agents)')
    .option('--since <time>', 'records with ts >= this (ISO-8601, integer ms, or a duration back from now: 15m, 2h, 7d)')
    .option('--level <level>', 'only records at this level or above: debug, info, warn, error')
    .option('--json', 'print each record as its JSON line', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (opts: LogsOptions) => {
      setCode(await logsCommand(opts, ctx));
    });

  program
    .command('explain')
    .description('the story of one event from the audit chain: accepted, triage, messages, dead letters, replays; exit 1 when it is not verified')
    .argument('<event-id>', 'the event id (svc events), or its first or last characters')
    .option('--json', 'print the story as served by GET /events/<id>/story', false)
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
    .action(async (eventId: string, opts: { json: boolean; url?: string; dir?: string }) => {
      const { explainCommand } = await import('./explain.js');
      setCode(await explainCommand(eventId, opts, ctx));
    });

  const views: Array<[string, string, readonly string[], (o: ViewOptions, c: CliContext) => Promise<number>]> = [
    ['events', 'list stored events, every page (GET /events)', eventsView.filters, eventsCommand],
    ['dlq', 'list dispatch dead letters, every page (GET /dlq)', dlqView.filters, dlqCommand],
    ['audit', 'list audit rows, every page (GET /audit)', auditView.filters, auditCommand],
  ];
  for (const [name, description, filters, run] of views) {
    const command = program
      .command(name)
      .description(description)
      .option('--json', 'print {"items": [...]} as JSON', false)
      .option('--url <url>', 'control-plane URL (default: the local daemon)')
      .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to get a token (default .)')
      .option('--limit <n>', 'rows printed in all (pages followed until N are in hand)')
      .option('--order <asc|desc>', 'sort order')
      .option('--since <time>', 'ISO-8601, integer ms, or a duration back from now (15m, 2h, 7d)')
      .option('--until <time>', 'ISO-8601 or integer ms');
    for (const filter of filters) command.option(`--${filter} <value>`, `only rows with this ${filter}`);
    if (name === 'audit') {
      command.option('--verify', 'verify the whole hash chain and print the verdict; exit 1 when broken', false);
      command.option('--rows', 'with --verify: print the rows too', false);
      command.option('--db <file>', 'with --verify: verify a store file offline (a backup, or a stopped daemon\'s store)');
      command.option('--checkpoints <file>', 'with --verify: also check these signed checkpoints (e.g. $SVC_HOME/checkpoints.jsonl) against the store (--db, default $SVC_HOME/svc.db)');
      command.option('--public-key <file>', 'with --checkpoints: the PEM public key that signed them (svc audit key)');
      command
        .command('key')
        .description('print the public key (PEM) of the audit checkpoint key')
        .option('--secret <path>', 'the secret holding the private key (default audit/checkpoint-key)')
        .action(async (opts: { secret?: string }) => {
          const { auditKeyCommand } = await import('./audit-proof.js');
          setCode(auditKeyCommand(opts, ctx));
        });
    }
    command.action(async (opts: ViewOptions & { db?: string; checkpoints?: string; publicKey?: string }) => {
      if (opts.checkpoints !== undefined || opts.publicKey !== undefined) {
        if (!opts.verify) throw new UsageError('svc audit: --checkpoints needs --verify');
        if (opts.checkpoints === undefined) throw new UsageError('svc audit: --public-key needs --checkpoints FILE');
        const { auditVerifyCheckpointsCommand } = await import('./audit-proof.js');
        setCode(await auditVerifyCheckpointsCommand({ ...opts, checkpoints: opts.checkpoints }, ctx));
        return;
      }
      if (opts.db !== undefined) {
        if (!opts.verify) throw new UsageError('svc audit: --db needs --verify');
        const { auditVerifyFileCommand } = await import('./operate.js');
        setCode(await auditVerifyFileCommand(opts.db, opts, ctx));
        return;
      }
      setCode(await run(opts, ctx));
    });
    if (name === 'events') {
      command
        .command('show')
        .description('one whole event: its fields, what triage decided, its payload (GET /events/<id>)')
        .argument('<id>', 'event id, or a prefix of it that only one event has')
        .option('--json', 'print the event as served', false)
        .action(async (id: string, _opts: { json: boolean }, cmd: Command) => {
          const { eventShowCommand } = await import('./event-show.js');
          setCode(await eventShowCommand(id, ownAndInherited<{ json: boolean; url?: string; dir?: string }>(cmd), ctx));
        });
    }
    if (name === 'dlq') {
      command
        .command('replay')
        .description("put dead letters back in the queue through the daemon's admin socket; exit 1 when one is not found")
        .argument('[ids...]', 'dead-letter ids, or their first or last characters when only one dead letter has them')
        .option('--all', 'every dead letter not replayed yet (narrow with --source, --reason)', false)
        .option('--source <id>', 'with --all: only this source')
        .option('--reason <reason>', 'with --all: only this reason')
        .option('--json', 'print {"replayed", "missing"} as JSON', false)
        .action(async (ids: string[], _opts: ReplayOptions, cmd: Command) => {
          const { dlqReplayCommand } = await import('./operate.js');
          setCode(await dlqReplayCommand(ids, ownAndInherited<ReplayOptions>(cmd), ctx));
        });
    }
  }

  registerFleet(program, ctx, setCode);
  registerOncall(program, ctx, setCode);
  registerPageCommands(program, ctx, setCode);
  registerSilenceCommands(program, ctx, setCode);
  registerPageViews(program, ctx, setCode);
  registerReport(program, ctx, setCode);
  registerShadow(program, ctx, setCode);

  program
    .command('console')
    .description('open the web console through a local proxy that prints a one-time sign-in link')
    .option('--port <n>', 'port of the proxy on 127.0.0.1 (default: any free port)')
    .option('--no-open', 'print the link without opening a browser')
    .option('--fleet', 'every host of fleet.yaml, with a host picker', false)
    .option('--file <path>', 'with --fleet: fleet.yaml to read')
    .option('--host <name>', 'with --fleet: only this host (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--label <key=value>', 'with --fleet: only hosts with this label (repeatable)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--url <url>', 'control-plane URL (default: the local daemon)')
    .option('--dir <dir>', 'agent directory whose controlPlane.auth says how to sign in (default .)')
    .option('--as <person>', 'the person of oncall.yaml acting in this console (default: each session chooses "Acting as")')
    .action(async (opts: ConsoleOptions) => {
      const { consoleCommand } = await import('./console/console-command.js');
      setCode(await consoleCommand(opts, ctx));
    });

  return program;
}

/** Runs one command line; returns the exit code (0 success, 1 runtime failure, 2 usage or configuration). */
export async function runCli(argv: string[], raw: CliContext): Promise<number> {
  // Everything written from here on, errors included, goes through the terminal-safe printer.
  const ctx = terminalContext(raw);
  let code: number = EXIT.ok;
  const program = buildProgram(ctx, (c) => { code = c; });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exitCode 0; everything else is a usage error.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ConfigError) ctx.stderr(`svc: configuration error:\n${err.message}\n`);
    else if (err instanceof UsageError || err instanceof RuntimeError) ctx.stderr(`${err.message}\n`);
    else ctx.stderr(`svc: unexpected error: ${errorText(err)}\n`);
    return exitCodeFor(err);
  }
}

/**
 * The options of a subcommand and of the commands above it (`--url` of `svc events` reaches `svc
 * events show`), where a value given on the command line wins over a default wherever either was
 * declared: commander's optsWithGlobals lets a parent's default (`--json` false on `svc dlq`) hide
 * the subcommand's own `--json`.
 */
function ownAndInherited<T>(cmd: Command): T {
  const chain: Command[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) chain.unshift(c);
  const out: Record<string, unknown> = {};
  for (const c of chain) {
    for (const [key, value] of Object.entries(c.opts())) {
      if (!(key in out) || c.getOptionValueSource(key) !== 'default') out[key] = value;
    }
  }
  return out as T;
}
