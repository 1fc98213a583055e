/**
 * `svc fleet <verb>` (contract §15) on the command line: the verbs, their flags, and the flags every
 * verb shares (`--file`, `--host` and `--label`, repeatable, `--json`).
 */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { auditView, dlqView, eventsView } from '../views.js';
import type { CliView } from '../views.js';
import type { FleetOptions } from './hosts.js';
import type { FleetLogsOptions } from './logs.js';
import { fleetLogsCommand } from './logs.js';
import { fleetPsCommand } from './ps.js';
import type { FleetViewOptions } from './views.js';
import { fleetViewCommand } from './views.js';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function shared(command: Command): Command {
  return command
    .option('--file <path>', 'fleet file (default ./fleet.yaml, then $SVC_HOME/fleet.yaml)')
    .option('--host <name>', 'only this host (repeatable)', collect, [])
    .option('--label <key=value>', 'only hosts with this label (repeatable; all must match)', collect, [])
    .option('--json', 'print {"items": [...], "hosts": [...], "complete": ...} as JSON', false);
}

export function registerFleet(program: Command, ctx: CliContext, setCode: (code: number) => void): void {
  const fleet = program.command('fleet').description('the read commands over every host of fleet.yaml, in parallel, saying which hosts answered');

  shared(fleet.command('ps').description('status of every host (GET /status)'))
    .action(async (opts: FleetOptions) => { setCode(await fleetPsCommand(opts, ctx)); });

  const addView = <T extends { ts: string }>(view: CliView<T>): void => {
    const command = shared(fleet.command(view.name).description(`${view.path} of every host, every page, merged by time`))
      .option('--limit <n>', 'rows printed in all (the first N of the merge)')
      .option('--page-size <n>', 'rows asked per request, 1-1000 (default 1000)')
      .option('--order <asc|desc>', `sort order (default ${view.defaultOrder})`)
      .option('--since <time>', 'ISO-8601, integer ms, or a duration back from now (15m, 2h, 7d)')
      .option('--until <time>', 'ISO-8601, integer ms, or a duration back from now');
    for (const filter of view.filters) command.option(`--${filter} <value>`, `only rows with this ${filter}`);
    if (view.verify) command.option('--verify', "verify each host's whole hash chain; exit 1 when one is broken", false);
    command.action(async (opts: FleetViewOptions) => { setCode(await fleetViewCommand(view, opts, ctx)); });
  };
  addView(eventsView);
  addView(dlqView);
  addView(auditView);

  shared(fleet.command('logs').description('log records of every host (GET /logs), prefixed by host; -f follows live'))
    .option('-f, --follow', 'keep following new records; drops are resumed with Last-Event-ID', false)
    .option('--agent <id>', 'one agent (default: all running agents)')
    .option('--since <time>', 'records with ts >= this (ISO-8601, integer ms, or 15m, 2h, 7d)')
    .action(async (opts: FleetLogsOptions) => { setCode(await fleetLogsCommand(opts, ctx)); });
}
