#!/usr/bin/env node
/** The `svc` bin: runs the CLI and owns the process exit code. */
import { fileURLToPath } from 'node:url';
import { runCli } from './cli/program.js';
import { systemContext } from './cli/context.js';

const code = await runCli(process.argv.slice(2), systemContext(fileURLToPath(import.meta.url)));
// Exit only once stdout and stderr are flushed: a pipe that is full takes writes asynchronously, and
// an immediate exit would cut a long `--json` answer short.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
