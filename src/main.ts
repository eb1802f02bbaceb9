/**
 * The operator CLI `inmo` (CONTRACT §9): the program, its command groups (one file each in
 * src/cli/, each with `register(program)`), and the output every command shares. Every
 * command takes `--json`: one JSON document on stdout, and on failure `{"error": "..."}` with
 * a non-zero exit code. The database comes from `DATABASE_URL` (default `sqlite:./data/inmo.db`).
 */
import { runCli } from './cli/run.ts';

process.exitCode = await runCli(process.argv.slice(2));
