// Worker threads do not inherit the parent's TypeScript loader: register tsx here,
// then load the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./frame-worker.ts');
