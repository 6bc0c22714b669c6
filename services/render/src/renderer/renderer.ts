/**
 * The one renderer call the worker makes: `renderReplay` of `@platform/osu`. It is a type
 * of its own so the pipeline takes it as a dependency, and tests can hand the worker a
 * renderer that fails or hangs on purpose.
 */
import { renderReplay, type RenderInput, type RenderResult } from '@platform/osu';

export type Renderer = (input: RenderInput) => Promise<RenderResult>;

export const osuRenderer: Renderer = renderReplay;
