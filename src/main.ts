/**
 * The operator CLI `inmo` (CONTRACT §9): the program, its command groups (one file each in
 * src/cli/, each with `register(program)`), and the output every command shares. Every
 * command takes `--json`: one JSON document on stdout, and on failure `{"error": "..."}` with
 * a non-zero exit code. The database comes from `DATABASE_URL` (default `sqlite:./data/inmo.db`).
 */
import { CommanderError } from 'commander';
import { output, printError } from './cli/common.ts';
import { buildProgram } from './cli/program.ts';

// Commander's own errors (unknown option, missing argument) come before any action, so they
// look at the arguments themselves to follow `--json`.
output.json = process.argv.includes('--json');

await buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return;
      if (output.json) process.stdout.write(`${JSON.stringify({ error: error.message.replace(/^error: /, '') })}\n`);
      process.exitCode = error.exitCode || 1;
      return;
    }
    printError((error as Error).message);
    process.exitCode = 1;
  });
