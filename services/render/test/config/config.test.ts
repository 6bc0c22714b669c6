/** The render environment: defaults, and a bad value named in the error. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '@platform/core';
import { renderEnvSchema, settingsFromEnv } from '../../src/config.js';

test('defaults match the spec and leave optional sizes unset', () => {
  const env = loadConfig(renderEnvSchema, {});
  assert.equal(env.PORT, 8727);
  assert.equal(env.RENDER_WIDTH, undefined);
  assert.equal(env.RENDER_HEIGHT, undefined);
  const settings = settingsFromEnv(env);
  assert.equal(settings.maxReplaySizeMb, 50);
  assert.equal(settings.maxSkinSizeMb, 200);
  assert.equal(settings.maxQueued, 100);
  assert.equal(settings.maxRendering, 20);
  assert.equal(settings.renderRateLimit, 5);
  assert.equal(settings.skinUploadRateLimit, 2);
  assert.equal(settings.legacySkinUploadRateLimit, 5);
});

test('values are read and bad ones are named', () => {
  const env = loadConfig(renderEnvSchema, {
    MAX_QUEUED: '7',
    RENDER_WIDTH: '320',
    BEATMAPS_DIR: '/a, /b',
  });
  assert.equal(env.MAX_QUEUED, 7);
  assert.equal(env.RENDER_WIDTH, 320);
  assert.deepEqual(env.BEATMAPS_DIR, ['/a', '/b']);
  assert.throws(
    () => loadConfig(renderEnvSchema, { MAX_RENDERING: 'lots' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'MAX_RENDERING',
  );
  assert.throws(
    () => loadConfig(renderEnvSchema, { CALLBACK_SECRET: 'short' }),
    (e: unknown) => e instanceof ConfigError && e.variable === 'CALLBACK_SECRET',
  );
});
