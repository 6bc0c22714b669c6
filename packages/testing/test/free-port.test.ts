// freePort hands a port to a child process before it listens: the port must stay free
// meanwhile, so it lies below Linux's ephemeral range, where neither an outgoing
// connection nor a server on port 0 can take it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { freePort, portFree } from '../src/free-port.js';

const ephemeralStart = Number(
  readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
);

test('ports lie below the ephemeral range, are free, and are never handed out twice', async () => {
  const ports: number[] = [];
  for (let i = 0; i < 50; i += 1) ports.push(await freePort());
  assert.equal(new Set(ports).size, ports.length, `a port handed out twice: ${ports.join(',')}`);
  for (const port of ports) {
    assert.ok(port < ephemeralStart, `${port} is in the ephemeral range (from ${ephemeralStart})`);
    assert.ok(await portFree(port), `${port} is not free`);
  }
});

test('never hands out a port another live process handed out', async () => {
  // A child takes 300 ports and stays alive; this process then takes 300. Drawn at random
  // from 12,000 without the note of each other's, about 7 would be the same.
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { freePort } = await import(${JSON.stringify(new URL('../src/free-port.ts', import.meta.url).href)});
       const ports = [];
       for (let i = 0; i < 300; i += 1) ports.push(await freePort());
       process.stdout.write(JSON.stringify(ports) + '\\n');
       process.stdin.resume();
       process.stdin.on('end', () => process.exit(0));`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  try {
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const theirs = new Set(JSON.parse(line) as number[]);
    assert.equal(theirs.size, 300);
    const ours: number[] = [];
    for (let i = 0; i < 300; i += 1) ours.push(await freePort());
    const shared = ours.filter((port) => theirs.has(port));
    assert.deepEqual(shared, [], 'ports handed out by both processes');
  } finally {
    child.stdin.end();
    await once(child, 'exit');
  }
});
