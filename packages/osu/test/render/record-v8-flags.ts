/**
 * Records every `v8.setFlagsFromString` call from here on, without applying it (a flag
 * switched at run time is what the test looks for, and what V8 does not support), for
 * the `node:v8` import of every module, loaded already or not. `stop()` puts V8's back.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

type V8 = { setFlagsFromString: (flags: string) => void };

export function recordV8Flags(): { calls: string[]; stop: () => void } {
  const v8 = createRequire(import.meta.url)('node:v8') as V8;
  const original = v8.setFlagsFromString;
  const calls: string[] = [];
  v8.setFlagsFromString = (flags) => {
    calls.push(flags);
  };
  // the ES module `node:v8` (`import { setFlagsFromString }`) takes the wrapper too
  syncBuiltinESMExports();
  return {
    calls,
    stop: () => {
      v8.setFlagsFromString = original;
      syncBuiltinESMExports();
    },
  };
}
