/**
 * The operator CLI `inmo` (CONTRACT §9): the program, its command groups (one file each in
 * src/cli/, each with `register(program)`), and the output every command shares. Every
 * command takes `--json`: one JSON document on stdout, and on failure `{"error": "..."}` with
 * a non-zero exit code. The database comes from `DATABASE_URL` (default `sqlite:./data/inmo.db`).
 */
import { runCli } from './cli/run.ts';

// A reader that stops early (`inmo … | head`) closes the pipe: what is left to print has nowhere
// to go, and the command ends as a Unix tool does at SIGPIPE, quietly, rather than crashing.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2));
