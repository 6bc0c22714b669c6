#!/usr/bin/env node
// The `analytics` command: runs src/cli-entry.ts through tsx (the workspace has no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli-entry.ts');
