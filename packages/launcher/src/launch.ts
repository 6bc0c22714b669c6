/**
 * `npm start`: starts every service in `services/*` that declares a `platform` field in
 * its package.json, each in its own process on the embedded defaults, prints each URL
 * once it answers `/health`, and stops them all cleanly on Ctrl-C.
 *
 *   npm start                     every service
 *   npm start -- render analytics only those
 *
 * A service plugs in by declaring, in its package.json:
 *   "platform": { "service": "render", "entry": "src/main.ts", "ports": { "PORT": 8727 } }
 * where each key of `ports` is the env variable that overrides that port. `<SERVICE>_<VAR>`
 * (e.g. `RENDER_PORT`) overrides it for that service alone; a plain `PORT` applies to
 * every service started, so use it with one service.
 *
 * A service that needs flags of node itself (V8's heap sizing, say) lists them:
 *   "nodeOptions": ["--min-semi-space-size=16"]
 * passed to its process before anything else (flags NODE_OPTIONS refuses included).
 *
 * A service lists the pages a person opens in a browser, printed after "ready":
 *   "pages": [{ "title": "console", "path": "/console", "port": "CONTROL_PLANE_PORT" }]
 * `port` names one of `ports` (default: the first); a `{placeholder}` in `path` is printed
 * as it is (e.g. the player page of a job).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

interface PageManifest {
  title: string;
  path: string;
  /** One of the service's `ports`; the first when absent. */
  port?: string;
}

interface ServiceManifest {
  service: string;
  entry: string;
  /** Flags of node for the service's process, e.g. `--min-semi-space-size=16`. */
  nodeOptions?: string[];
  ports: Record<string, number>;
  pages?: PageManifest[];
}

interface Service extends ServiceManifest {
  dir: string;
  env: Record<string, string>;
  urls: string[];
}

/** Each declared page as `{ title, url }`, on the port the service was started with. */
function pageUrls(
  service: Pick<Service, 'service' | 'ports' | 'pages' | 'urls'>,
): Array<{ title: string; url: string }> {
  const variables = Object.keys(service.ports);
  return (service.pages ?? []).map((page) => {
    const index = page.port === undefined ? 0 : variables.indexOf(page.port);
    if (index < 0)
      throw new Error(
        `${service.service}: page "${page.title}" names port ${page.port}, not one of ${variables.join(', ')}`,
      );
    return { title: page.title, url: `${service.urls[index]!}${page.path}` };
  });
}

// PLATFORM_ROOT lets tests launch a workspace of their own.
const root = resolve(
  process.env.PLATFORM_ROOT ?? fileURLToPath(new URL('../../..', import.meta.url)),
);
// Resolved here, not from each service's folder, so a service needs no tsx of its own.
const TSX = import.meta.resolve('tsx');
const READY_TIMEOUT_MS = Number(process.env.LAUNCH_READY_TIMEOUT_MS ?? 180_000);
const STOP_TIMEOUT_MS = 20_000;

function discoverServices(): Service[] {
  const servicesDir = join(root, 'services');
  if (!existsSync(servicesDir)) return [];
  return readdirSync(servicesDir)
    .map((name) => join(servicesDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .flatMap((dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).platform as
        ServiceManifest | undefined;
      if (!manifest) return [];
      const { nodeOptions = [] } = manifest;
      if (!Array.isArray(nodeOptions) || !nodeOptions.every((o) => /^--[a-z]/.test(String(o))))
        throw new Error(`${manifest.service}: nodeOptions must be a list of node flags (--…)`);
      const env: Record<string, string> = {};
      const urls: string[] = [];
      for (const [variable, defaultPort] of Object.entries(manifest.ports)) {
        // `RENDER_PORT` sets render's `PORT` without touching the other services' `PORT`.
        const scoped = `${manifest.service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${variable}`;
        const port = process.env[scoped] ?? process.env[variable] ?? String(defaultPort);
        env[variable] = port;
        urls.push(`http://localhost:${port}`);
      }
      const service = { ...manifest, dir, env, urls };
      pageUrls(service); // a page naming an unknown port is refused before anything starts
      return [service];
    });
}

function prefixLines(
  stream: NodeJS.ReadableStream,
  label: string,
  out: NodeJS.WritableStream,
): void {
  createInterface({ input: stream }).on('line', (line) => out.write(`${label} ${line}\n`));
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error('exited before it answered');
    try {
      // Any answer counts: a 503 means the process is up but a dependency is not.
      await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  throw new Error(`no answer on ${url}/health within ${READY_TIMEOUT_MS / 1000} s`);
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  let all: Service[];
  try {
    all = discoverServices();
  } catch (error) {
    console.error(`services/*/package.json: ${(error as Error).message}`);
    process.exit(2);
  }
  const services = wanted.length ? all.filter((s) => wanted.includes(s.service)) : all;
  const unknown = wanted.filter((name) => !all.some((s) => s.service === name));
  if (unknown.length) {
    console.error(
      `unknown service(s): ${unknown.join(', ')}; known: ${all.map((s) => s.service).join(', ')}`,
    );
    process.exit(2);
  }
  if (services.length === 0) {
    console.error('no services found under services/*');
    process.exit(1);
  }

  const width = Math.max(...services.map((s) => s.service.length));
  const children = new Map<Service, ChildProcess>();
  let stopping = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nstopping services…');
    const exits = [...children.values()].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS).unref();
        }),
    );
    await Promise.all(exits);
    console.log('all services stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  for (const service of services) {
    const label = `[${service.service.padEnd(width)}]`;
    const args = [
      ...(service.nodeOptions ?? []),
      '--import',
      TSX,
      join(service.dir, service.entry),
    ];
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, ...service.env, DATA_DIR: process.env.DATA_DIR ?? join(root, 'data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.set(service, child);
    prefixLines(child.stdout!, label, process.stdout);
    prefixLines(child.stderr!, label, process.stderr);
    child.on('exit', (code, signal) => {
      if (stopping) return;
      console.error(
        `${label} exited unexpectedly (${signal ?? `code ${code}`}); stopping the others`,
      );
      void stopAll(1);
    });
  }

  const results = await Promise.allSettled(
    services.map(async (service) => {
      const child = children.get(service)!;
      for (const url of service.urls) await waitUntilAnswering(url, child);
    }),
  );
  const failed = results.flatMap((result, i) =>
    result.status === 'rejected'
      ? [`${services[i]!.service}: ${(result.reason as Error).message}`]
      : [],
  );
  if (failed.length) {
    console.error(`could not start: ${failed.join('; ')}`);
    await stopAll(1);
    return;
  }
  console.log('\nready:');
  for (const service of services) {
    const ports = Object.keys(service.ports);
    service.urls.forEach((url, i) => {
      const what = ports.length > 1 ? ` (${ports[i]})` : '';
      console.log(`  ${service.service.padEnd(width)}  ${url}${what}`);
    });
  }
  const pages = services.flatMap((service) =>
    pageUrls(service).map((page) => ({ service: service.service, ...page })),
  );
  if (pages.length) {
    const titleWidth = Math.max(...pages.map((page) => page.title.length));
    console.log('\npages:');
    for (const page of pages)
      console.log(`  ${page.service.padEnd(width)}  ${page.title.padEnd(titleWidth)}  ${page.url}`);
  }
  console.log('\nCtrl-C stops everything.');
}

void main();
