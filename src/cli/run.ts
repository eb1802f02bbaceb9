/**
 * One run of the operator CLI (CONTRACT §9): parses the arguments, runs the command, and
 * reports as the documented output says. `src/main.ts` runs it on the process's own
 * arguments, environment and streams; tests run it in their own process with theirs.
 */
import { CommanderError } from 'commander';
import { cli, printError, type CliStream } from './common.ts';
import { buildProgram } from './program.ts';

/**
 * Runs `inmo ARGS…` in this process.
 * @param args the arguments after `inmo`.
 * @param io the environment and the streams of the run (the process's own by default).
 * @returns the exit code the run ends with (0, 1, or a command's own, e.g. an import's 3).
 *   A command that keeps running (`serve`, `worker`) returns once it is up.
 */
export async function runCli(
  args: string[],
  io: { env?: NodeJS.ProcessEnv; stdout?: CliStream; stderr?: CliStream } = {},
): Promise<number> {
  const previous = { ...cli };
  Object.assign(cli, { env: io.env ?? process.env, stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr, exitCode: 0 });
  // Commander's own errors (unknown option, missing argument) come before any action, so they
  // look at the arguments themselves to follow `--json`.
  cli.json = args.includes('--json');
  try {
    await buildProgram().parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code !== 'commander.helpDisplayed' && error.code !== 'commander.version' && error.code !== 'commander.help') {
        if (cli.json) cli.stdout.write(`${JSON.stringify({ error: error.message.replace(/^error: /, '') })}\n`);
        cli.exitCode = error.exitCode || 1;
      }
    } else {
      printError((error as Error).message);
      cli.exitCode = 1;
    }
  }
  const exitCode = cli.exitCode;
  Object.assign(cli, previous);
  return exitCode;
}
