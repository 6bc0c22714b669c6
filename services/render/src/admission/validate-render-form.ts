/**
 * The spec's request checks, in its order: extension (400), size (400 empty, 413 too
 * large), replay structure and game mode (415, decoded by the `ReplayDecoder`, off the
 * event loop for large files), then the parameters (422), a skin that is not stored
 * included. Returns the replay's header fields and the normalised options; throws the
 * coded error of the first failing check.
 */
import { defaultRenderOptions } from '@platform/osu';
import type { RenderSettings } from '../config.js';
import { renderErrors } from '../errors.js';
import { parseExtraRenderParameters } from '../jobs/extra-render-parameters.js';
import type { RenderJobOptions, ReplayInfo } from '../jobs/job-store.js';
import type { SkinCatalog } from '../skins/skin-catalog.js';
import { DEFAULT_SKIN, isValidSkinName } from '../skins/skin-name.js';
import { hasReplayExtension, type RenderForm } from './render-form.js';
import type { ReplayDecoder } from './replay-decoder.js';
import type { ReplaySummary } from './replay-summary.js';

/**
 * The spec's defaults of the render parameters (section 2), which are the renderer's own
 * (the admission test pins every value).
 */
export const DEFAULT_RENDER_OPTIONS: Readonly<RenderJobOptions> = Object.freeze({
  resolution: defaultRenderOptions.resolution,
  bgDim: defaultRenderOptions.bgDim,
  motionBlur: defaultRenderOptions.motionBlur,
  storyboard: defaultRenderOptions.storyboard,
  video: defaultRenderOptions.video,
  snakingIn: defaultRenderOptions.snakingIn,
  snakingOut: defaultRenderOptions.snakingOut,
  hitErrorMeter: defaultRenderOptions.hitErrorMeter,
  keyOverlay: defaultRenderOptions.keyOverlay,
});

export interface ValidatedRender {
  replay: ReplayInfo;
  data: Buffer;
  skin: string;
  options: RenderJobOptions;
}

export interface FieldError {
  field: string;
  message: string;
}

/** What the checks consult besides the form. */
export interface RenderFormChecks {
  replays: Pick<ReplayDecoder, 'decode'>;
  skins: Pick<SkinCatalog, 'exists'>;
}

export async function validateRenderForm(
  form: RenderForm,
  settings: RenderSettings,
  checks: RenderFormChecks,
  legacy = false,
): Promise<ValidatedRender> {
  if (!hasReplayExtension(form.filename)) throw renderErrors.RENDER_REPLAY_EXTENSION();
  if (form.tooLarge) {
    throw renderErrors.RENDER_REPLAY_TOO_LARGE({
      detail: `Replay file exceeds maximum size of ${settings.maxReplaySizeMb}MB.`,
    });
  }
  const data = form.data;
  if (!data || data.length === 0) throw renderErrors.RENDER_REPLAY_EMPTY();

  let replay: ReplaySummary;
  try {
    replay = await checks.replays.decode(data);
  } catch (error) {
    // Every decode failure (truncation, bad LZMA, another game mode, nonsense) is a 415.
    throw renderErrors.RENDER_REPLAY_INVALID({ cause: error });
  }
  if (replay.mode !== 0) throw renderErrors.RENDER_REPLAY_INVALID();

  const errors: FieldError[] = [];
  const fields = form.fields;
  const skin = fields.skin === undefined || fields.skin === '' ? DEFAULT_SKIN : fields.skin;
  if (!isValidSkinName(skin)) {
    errors.push({
      field: 'skin',
      message: 'must contain only letters, digits, spaces, hyphens and underscores (at most 64)',
    });
  }
  const resolution = resolveResolution(fields, legacy);
  if (resolution !== '1080p' && resolution !== '4k')
    errors.push({ field: 'resolution', message: 'must be 1080p or 4k' });
  const bgDim = parseBgDim(fields.bg_dim);
  if (bgDim === undefined)
    errors.push({
      field: 'bg_dim',
      message: 'must be a number from 0.0 to 1.0 (values above 1 are read as percent)',
    });

  const flag = (name: string, fallback: boolean): boolean => {
    const value = parseBool(fields[name], fallback);
    if (value === undefined) {
      errors.push({ field: name, message: 'must be true or false' });
      return fallback;
    }
    return value;
  };
  const options: RenderJobOptions = {
    resolution: resolution as RenderJobOptions['resolution'],
    bgDim: bgDim ?? DEFAULT_RENDER_OPTIONS.bgDim,
    motionBlur: flag('motion_blur', DEFAULT_RENDER_OPTIONS.motionBlur),
    storyboard: flag('storyboard', DEFAULT_RENDER_OPTIONS.storyboard),
    video: flag('video', DEFAULT_RENDER_OPTIONS.video),
    snakingIn: flag('snaking_in', DEFAULT_RENDER_OPTIONS.snakingIn),
    snakingOut: flag('snaking_out', DEFAULT_RENDER_OPTIONS.snakingOut),
    hitErrorMeter: flag('hit_error_meter', DEFAULT_RENDER_OPTIONS.hitErrorMeter),
    keyOverlay: flag('key_overlay', DEFAULT_RENDER_OPTIONS.keyOverlay),
    ...parseExtraRenderParameters(fields, errors),
  };
  if (errors.length === 0 && !(await checks.skins.exists(skin)))
    errors.push({
      field: 'skin',
      message: `no skin named "${skin}" is stored (GET /v1/skins lists them)`,
    });
  if (errors.length > 0) throw renderErrors.RENDER_VALIDATION({ body: { errors } });
  return { replay: replay.info, data, skin, options };
}

function resolveResolution(fields: Record<string, string>, legacy: boolean): string {
  if (legacy && fields.quality !== undefined)
    return fields.quality.trim().toLowerCase() === 'ultra' ? '4k' : '1080p';
  const value = fields.resolution;
  return value === undefined || value === '' ? '1080p' : value.trim().toLowerCase();
}

/** 0.0–1.0; a value above 1 is a percentage (95 → 0.95). Undefined when out of range or not a number. */
export function parseBgDim(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return DEFAULT_RENDER_OPTIONS.bgDim;
  if (!/^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(raw)) return undefined;
  let value = Number(raw);
  if (value > 1) value /= 100;
  return value >= 0 && value <= 1 ? value : undefined;
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function parseBool(raw: string | undefined, fallback: boolean): boolean | undefined {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}
