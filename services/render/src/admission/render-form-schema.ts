/**
 * The multipart form of `POST /v1/render` (and legacy `POST /render`) as JSON Schema, for
 * the OpenAPI document only (`multipartBody`: the form is read as a stream, never
 * validated against this). The fields and defaults are the spec's section 2, then the
 * extra parameters; `validate-render-form.ts` enforces them and answers 422 per field.
 */
import { EXTRA_RENDER_PARAMETERS_SCHEMA } from '../jobs/extra-render-parameters.js';
import { DEFAULT_SKIN } from '../skins/skin-name.js';
import { DEFAULT_RENDER_OPTIONS } from './validate-render-form.js';

const flag = (description: string, fallback: boolean) => ({
  type: 'boolean',
  default: fallback,
  description: `${description} (also 1/0, yes/no, on/off)`,
});

const d = DEFAULT_RENDER_OPTIONS;

export const RENDER_FORM_SCHEMA = {
  type: 'object',
  required: ['replay'],
  properties: {
    replay: {
      type: 'string',
      format: 'binary',
      description: 'The .osr replay file (standard mode), at most MAX_REPLAY_SIZE_MB',
    },
    skin: {
      type: 'string',
      pattern: '^[a-zA-Z0-9_ -]+$',
      maxLength: 64,
      default: DEFAULT_SKIN,
      description: 'A stored skin (GET /v1/skins lists them)',
    },
    bg_dim: {
      type: 'number',
      minimum: 0,
      maximum: 100,
      default: d.bgDim,
      description:
        'Background dim, 0.0 none to 1.0 full; a value above 1 is a percentage (95 is 0.95)',
    },
    resolution: { type: 'string', enum: ['1080p', '4k'], default: d.resolution },
    motion_blur: flag('Motion blur', d.motionBlur),
    storyboard: flag('Load the beatmap storyboard', d.storyboard),
    video: flag('Load the beatmap background video', d.video),
    snaking_in: flag('Slider snaking-in animation', d.snakingIn),
    snaking_out: flag('Slider snaking-out animation', d.snakingOut),
    hit_error_meter: flag('Hit error meter overlay', d.hitErrorMeter),
    key_overlay: flag('Key press overlay', d.keyOverlay),
    ...EXTRA_RENDER_PARAMETERS_SCHEMA,
  },
};

/** The legacy form: the same fields, and `quality` (`ultra` is 4k), which wins over `resolution`. */
export const LEGACY_RENDER_FORM_SCHEMA = {
  ...RENDER_FORM_SCHEMA,
  properties: {
    ...RENDER_FORM_SCHEMA.properties,
    quality: {
      type: 'string',
      description:
        '`ultra` renders in 4k, any other value in 1080p; when present, `resolution` is ignored',
    },
  },
};
