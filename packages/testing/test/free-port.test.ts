// freePort hands a port to a child process before it listens: the port must stay free
// meanwhile, so it lies below Linux's ephemeral range, where neither an outgoing
// connection nor a server on port 0 can take it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
