/**
 * What every command of the operator CLI shares (CONTRACT §9): `--json` output, the
 * documented error output and exit codes, argument parsers, and one way to open the database.
 *
 * A command group is a file of this folder with `register(program)`; src/main.ts registers
 * them all. An action imports the services it uses when it runs (`await import(…)`), so that a
 * command loads only its own code and `inmo --version` none (issue 42; test/unit/architecture.test.ts). An action prints with {@link print} and fails by throwing: {@link action} turns any
 * error into `error: …` on stderr, or `{"error": "…"}` on stdout with `--json`, and a non-zero
 * exit code (1 unless a {@link CliError} says otherwise).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { InmoError } from '../errors.ts';

/** An error to show the operator as it is (no stack trace), with the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** A stream the CLI writes to: the process's own, or a test's (`isTTY` only for a terminal). */
export type CliStream = NodeJS.WritableStream & { isTTY?: boolean };

/**
 * Where the running command reads its settings and writes its output: the process's
 * environment and streams, or those a caller of {@link runCli} gave, so that the whole program
 * also runs inside another process (the tests). `json` is set once, before any action runs
 * (the program's `preAction` hook); `exitCode` is what the run ends with.
 */
export const cli: { env: NodeJS.ProcessEnv; stdout: CliStream; stderr: CliStream; json: boolean; exitCode: number } = {
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  json: false,
  exitCode: 0,
};

/** Prints a command's result: `value` as one JSON line with `--json`, else `human`. */
export function print(value: unknown, human: string): void {
  cli.stdout.write(cli.json ? `${JSON.stringify(value)}\n` : `${human}\n`);
}

/** Prints a failure as CONTRACT §9 says: `{"error": …}` on stdout with `--json`, else on stderr. */
export function printError(message: string): void {
  if (cli.json) cli.stdout.write(`${JSON.stringify({ error: message })}\n`);
  else cli.stderr.write(`error: ${message}\n`);
}

/** Wraps a command's action: a thrown error becomes the documented error output and exit code. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (error) {
      printError(error instanceof InmoError ? error.cliMessage : error instanceof Error ? error.message : String(error));
      cli.exitCode = error instanceof CliError ? error.exitCode : 1;
    }
  };
}

/** Adds a command under `parent` with the options every command takes (`--json`). */
export function command(parent: Command, name: string, description: string): Command {
  return parent.command(name).description(description).option('--json', 'print one JSON document on stdout');
}

/** `--port`: 0 to 65535. */
export function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0 picks a free one)');
  return n;
}

/** A whole number from 1 up (ids, counts). */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/**
 * Opens the database of `DATABASE_URL` and brings its schema up to date.
 * @param options.mustExist for commands that only read: a SQLite file that does not exist is
 *   refused (naming the path looked at) instead of being created empty.
 * @throws CliError when `mustExist` and the SQLite file is missing.
 */
export async function openDb(config: Config, options: { mustExist?: boolean } = {}): Promise<Db> {
  const url = config.databaseUrl;
  if (options.mustExist && url.startsWith('sqlite:')) {
    const path = resolve(url.slice('sqlite:'.length));
    if (!existsSync(path) || !statSync(path).isFile()) {
      throw new CliError(`No database at ${path} (DATABASE_URL=${url}): check DATABASE_URL, or create it with inmo migrate`);
    }
  }
  const { createDb, migrate } = await import('../db/database.ts');
  const db = createDb(url, config.pool);
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** Opens the database ({@link openDb}), runs `work`, closes the database. */
export async function withDb<T>(work: (db: Db) => Promise<T>, options: { mustExist?: boolean } = {}): Promise<T> {
  const db = await openDb(loadConfig(cli.env), options);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

/** `n thing` or `n things`. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : pluralForm}`;
}
