/**
 * Load from wrk (Debian's `wrk`), a C load generator, so that the generator is not what limits
 * the figures: a Node generator tops out near 20k req/s on one core, below what the servers
 * here can answer. wrk runs pinned to CPU 1 (servers run on CPU 0, bench/processes.ts), and
 * its own CPU use is sampled from /proc during each run: a run whose generator sat near 100%
 * of its core measured the generator, not the server, and the report says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * One run's figures: requests per second, latency percentiles (ms), failures, generator CPU (0–1
 * of a core), and the server's CPU per request (µs, NaN when its process was not named).
 */
export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  generatorCpu: number;
  /**
   * The server process's CPU time (user + system, all its threads) over the sampled window, divided
   * by the requests answered in it, µs. Unlike req/s it does not saturate when the generator is
   * the limit: a server half idle because wrk cannot go faster still shows what a request costs it.
   */
  serverCpuUs: number;
}

/** The wrk version line, or null when wrk is not installed. */
export function wrkVersion(): string | null {
  const run = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (run.error) return null;
  // `wrk debian/4.1.0-3+b2 [epoll] Copyright (C) …` → `wrk debian/4.1.0-3+b2`
  return (run.stdout + run.stderr).split('\n')[0].split(' [')[0].trim();
}

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** CPU seconds a process has used so far (utime + stime), or null once it is gone. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!match) throw new Error(`wrk printed an unexpected latency: ${text}`);
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

/** Parses wrk's `--latency` report. */
export function parseWrk(report: string): Omit<Load, 'generatorCpu' | 'serverCpuUs'> {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(report);
  const p50 = /^\s+50%\s+(\S+)/m.exec(report);
  const p99 = /^\s+99%\s+(\S+)/m.exec(report);
  if (!rps || !p50 || !p99) throw new Error(`wrk printed an unexpected report:\n${report}`);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(report)?.[1] ?? 0);
  return { rps: Number(rps[1]), p50: milliseconds(p50[1]), p99: milliseconds(p99[1]), errors, non2xx };
}

/**
 * Loads `url` with one wrk thread and `connections` connections for `duration` seconds.
 * @param options `pin`: run wrk on CPU 1 (`taskset`); `script`: a wrk Lua script (bench/*.lua)
 *   that builds the requests, given `scriptArgs`; `until`: the run ends (SIGINT: wrk reports what
 *   it has) when this settles, `duration` being then only its longest; the generator's CPU is
 *   sampled from the start to then; `serverPid`: the server's process, whose CPU is sampled over
 *   the same window (`serverCpuUs`).
 * @throws Error when wrk is missing (`apt-get install wrk`) or fails.
 */
export function wrk(
  url: string,
  headers: Record<string, string>,
  options: {
    connections: number;
    duration: number;
    pin: boolean;
    script?: string;
    scriptArgs?: string[];
    until?: Promise<unknown>;
    serverPid?: number;
  },
): Promise<Load> {
  const args = ['-t1', `-c${options.connections}`, `-d${options.duration}s`, '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (options.script) args.push('-s', options.script);
  args.push(url);
  if (options.scriptArgs) args.push('--', ...options.scriptArgs);
  const [file, argv] = options.pin ? ['taskset', ['-c', '1', 'wrk', ...args]] : ['wrk', args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.on('error', (error) => reject(new Error(`cannot run wrk (apt-get install wrk): ${error.message}`)));
    // taskset execs wrk, so the pid is wrk's. CPU is sampled inside the run, away from start-up and the report.
    const samples: Array<[number, number, number | null]> = [];
    const sample = () => {
      const cpu = cpuSeconds(child.pid!);
      const server = options.serverPid === undefined ? null : cpuSeconds(options.serverPid);
      if (cpu !== null) samples.push([performance.now() / 1000, cpu, server]);
    };
    const first = setTimeout(sample, options.until ? 0 : 500);
    const last = options.until ? undefined : setTimeout(sample, Math.max(600, options.duration * 1000 - 250));
    const end = () => {
      if (child.exitCode !== null) return;
      sample();
      child.kill('SIGINT');
    };
    options.until?.then(end, end);
    child.on('close', (code) => {
      clearTimeout(first);
      clearTimeout(last);
      if (code !== 0) return reject(new Error(`wrk exited ${code}:\n${out}`));
      try {
        const generatorCpu = samples.length === 2 ? (samples[1][1] - samples[0][1]) / (samples[1][0] - samples[0][0]) : NaN;
        const report = parseWrk(out);
        const [from, to] = samples;
        const serverCpuUs =
          samples.length === 2 && from[2] !== null && to[2] !== null && report.rps > 0
            ? ((to[2] - from[2]) / ((to[0] - from[0]) * report.rps)) * 1e6
            : NaN;
        resolve({ ...report, generatorCpu, serverCpuUs });
      } catch (error) {
        reject(error);
      }
    });
  });
}
