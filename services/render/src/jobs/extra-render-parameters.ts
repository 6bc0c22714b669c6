/**
 * The render parameters a player sets beyond the spec's section 2: the volumes, overlays,
 * cursor, dims and frame rate that o!rdr offers. One table, which admission parses, the
 * job view shows, the job schema documents and the home page offers; the defaults are
 * the renderer's own (`defaultExtraRenderOptions`), so a form left alone renders as
 * before. Every one is optional, and a bad value is a 422 naming its field, like the
 * spec's parameters.
 */
import {
  defaultExtraRenderOptions,
  type ExtraRenderOptionKey,
  type RenderOptions,
} from '@platform/osu';

export type ExtraRenderOptions = Required<Pick<RenderOptions, ExtraRenderOptionKey>>;

interface Parameter<K extends ExtraRenderOptionKey = ExtraRenderOptionKey> {
  /** The multipart field and the key in the v1 job's `options`. */
  field: string;
  key: K;
  label: string;
  kind:
    | { type: 'bool' }
    | { type: 'number'; min: number; max: number; integer?: boolean }
    /** 0.0–1.0, a value above 1 read as a percentage, as the spec's `bg_dim`. */
    | { type: 'dim' }
    | { type: 'choice'; choices: readonly number[] };
}

const bool = { type: 'bool' } as const;
const volume = { type: 'number', min: 0, max: 100, integer: true } as const;

export const EXTRA_RENDER_PARAMETERS: readonly Parameter[] = [
  { field: 'music_volume', key: 'musicVolume', label: 'Music volume', kind: volume },
  { field: 'hitsound_volume', key: 'hitsoundVolume', label: 'Hitsound volume', kind: volume },
  { field: 'hp_bar', key: 'hpBar', label: 'HP bar', kind: bool },
  { field: 'unstable_rate', key: 'unstableRate', label: 'Unstable rate', kind: bool },
  { field: 'hit_counter', key: 'hitCounter', label: 'Hit counter', kind: bool },
  { field: 'pp_counter', key: 'ppCounter', label: 'PP counter', kind: bool },
  { field: 'results_screen', key: 'resultsScreen', label: 'Results screen', kind: bool },
  { field: 'hit_lighting', key: 'hitLighting', label: 'Hit lighting', kind: bool },
  { field: 'use_beatmap_skin', key: 'useBeatmapSkin', label: "Beatmap's own skin", kind: bool },
  {
    field: 'use_beatmap_colours',
    key: 'useBeatmapColours',
    label: "Beatmap's combo colours",
    kind: bool,
  },
  {
    field: 'cursor_size',
    key: 'cursorSize',
    label: 'Cursor size',
    kind: { type: 'number', min: 0.5, max: 2 },
  },
  {
    field: 'intro_bg_dim',
    key: 'introBgDim',
    label: 'Intro background dim',
    kind: { type: 'dim' },
  },
  {
    field: 'break_bg_dim',
    key: 'breakBgDim',
    label: 'Break background dim',
    kind: { type: 'dim' },
  },
  {
    field: 'fps',
    key: 'fps',
    label: 'Frames per second',
    kind: { type: 'choice', choices: [30, 60] },
  },
];

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);
const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

/** What a field must be, as the 422 says it. */
function rule(kind: Parameter['kind']): string {
  switch (kind.type) {
    case 'bool':
      return 'must be true or false';
    case 'number':
      return `must be a${kind.integer ? ' whole' : ''} number from ${kind.min} to ${kind.max}`;
    case 'dim':
      return 'must be a number from 0.0 to 1.0 (values above 1 are read as percent)';
    case 'choice':
      return `must be one of ${kind.choices.join(', ')}`;
  }
}

/** The field's value, or undefined when it breaks its rule. */
function parse(kind: Parameter['kind'], raw: string): boolean | number | undefined {
  const text = raw.trim().toLowerCase();
  if (kind.type === 'bool') return TRUE.has(text) ? true : FALSE.has(text) ? false : undefined;
  if (!NUMBER.test(text)) return undefined;
  const value = Number(text);
  switch (kind.type) {
    case 'number':
      if (kind.integer && !Number.isInteger(value)) return undefined;
      return value >= kind.min && value <= kind.max ? value : undefined;
    case 'dim':
      if (value > 1) return value <= 100 ? value / 100 : undefined;
      return value >= 0 ? value : undefined;
    case 'choice':
      return kind.choices.includes(value) ? value : undefined;
  }
}

/**
 * Every extra parameter from the form, its default where the field is absent or blank;
 * each bad field is pushed onto `errors` (and its default used, so checking goes on).
 */
export function parseExtraRenderParameters(
  fields: Readonly<Record<string, string>>,
  errors: { field: string; message: string }[],
): ExtraRenderOptions {
  const options: Record<string, boolean | number> = { ...defaultExtraRenderOptions };
  for (const { field, key, kind } of EXTRA_RENDER_PARAMETERS) {
    const raw = fields[field];
    if (raw === undefined || raw.trim() === '') continue;
    const value = parse(kind, raw);
    if (value === undefined) errors.push({ field, message: rule(kind) });
    else options[key] = value;
  }
  return options as ExtraRenderOptions;
}

/** The v1 view of a job's extra options (a job stored before they existed shows the defaults). */
export function extraRenderParametersView(
  options: Partial<ExtraRenderOptions>,
): Record<string, boolean | number> {
  return Object.fromEntries(
    EXTRA_RENDER_PARAMETERS.map(({ field, key }) => [
      field,
      options[key] ?? defaultExtraRenderOptions[key],
    ]),
  );
}

/** JSON Schema properties of the v1 view (the job schema's `options`). */
export const EXTRA_RENDER_PARAMETERS_SCHEMA: Record<string, object> = Object.fromEntries(
  EXTRA_RENDER_PARAMETERS.map(({ field, label, kind }) => [
    field,
    kind.type === 'bool'
      ? { type: 'boolean', description: label }
      : kind.type === 'choice'
        ? { type: 'integer', enum: [...kind.choices], description: label }
        : {
            type: kind.type === 'number' && kind.integer ? 'integer' : 'number',
            minimum: kind.type === 'number' ? kind.min : 0,
            maximum: kind.type === 'number' ? kind.max : 1,
            description: label,
          },
  ]),
);

/** One line per parameter for the route's description. */
export const EXTRA_RENDER_PARAMETERS_HELP = EXTRA_RENDER_PARAMETERS.map(
  ({ field, key, kind }) =>
    `${field} (${rule(kind).replace(/^must be /, '')}, default ${defaultExtraRenderOptions[key]})`,
).join('; ');
