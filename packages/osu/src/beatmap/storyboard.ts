/**
 * Storyboard parser: Sprite and Animation objects with their commands (F, M, MX, MY, S,
 * V, R, C, P, L loops, T triggers), from a .osb file or a .osu [Events] section,
 * with [Variables] substitution. Unknown or malformed lines are skipped.
 */
import type { StoryboardCommand, StoryboardElement } from './types.js';

const LAYERS = new Set(['Background', 'Fail', 'Pass', 'Foreground', 'Overlay']);
const LAYER_BY_NUMBER = ['Background', 'Fail', 'Pass', 'Foreground', 'Overlay'];
const ORIGIN_BY_NUMBER = [
  'TopLeft',
  'Centre',
  'CentreLeft',
  'TopRight',
  'BottomCentre',
  'TopCentre',
  'Custom',
  'CentreRight',
  'BottomLeft',
  'BottomRight',
];

/** Longest event line variable substitution may build; a line that would grow past it is skipped. */
const MAX_SUBSTITUTED_CHARS = 64 * 1024;

const unquote = (s: string): string =>
  s
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/\\/g, '/');

/** Parses storyboard lines (event lines of either file). */
export function parseStoryboardLines(
  lines: string[],
  variables: Map<string, string> = new Map(),
): StoryboardElement[] {
  const elements: StoryboardElement[] = [];
  let current: StoryboardElement | undefined;
  let loop: StoryboardCommand | undefined;
  for (let raw of lines) {
    if (raw.startsWith('//') || !raw.trim()) continue;
    if (raw.includes('$')) {
      const substituted = substitute(raw, variables);
      if (substituted === undefined) {
        // refused like any malformed line: an element's commands go with it
        if (!/^[ _]/.test(raw)) current = loop = undefined;
        continue;
      }
      raw = substituted;
    }
    const depth = raw.length - raw.replace(/^[ _]+/, '').length;
    const parts = raw.trim().split(',');
    if (depth === 0) {
      loop = undefined;
      current = undefined;
      const kind = parts[0];
      if ((kind === 'Sprite' || kind === '4') && parts.length >= 6) {
        current = element('sprite', parts);
      } else if ((kind === 'Animation' || kind === '6') && parts.length >= 8) {
        current = element('animation', parts);
        current.frameCount = Math.max(1, Number(parts[6]) || 1);
        current.frameDelay = Number(parts[7]) || 0;
        current.loopForever = (parts[8] ?? 'LoopForever').trim() !== 'LoopOnce';
      }
      if (current) elements.push(current);
      continue;
    }
    if (!current) continue;
    const cmd = command(parts);
    if (!cmd) continue;
    if (depth >= 2 && loop) loop.children.push(cmd);
    else {
      current.commands.push(cmd);
      loop = cmd.type === 'L' || cmd.type === 'T' ? cmd : undefined;
    }
  }
  return elements;
}

/**
 * Replaces each variable in turn. A value may name later variables, so every step can
 * multiply the length: the result is refused (undefined) before it outgrows
 * MAX_SUBSTITUTED_CHARS, instead of building a huge string from a few kilobytes.
 */
function substitute(raw: string, variables: Map<string, string>): string | undefined {
  for (const [k, v] of variables) {
    const pieces = raw.split(k);
    if (pieces.length === 1) continue;
    if (raw.length + (pieces.length - 1) * (v.length - k.length) > MAX_SUBSTITUTED_CHARS)
      return undefined;
    raw = pieces.join(v);
  }
  return raw;
}

function element(kind: 'sprite' | 'animation', parts: string[]): StoryboardElement {
  const layerRaw = parts[1]!.trim();
  const originRaw = parts[2]!.trim();
  return {
    kind,
    layer: LAYERS.has(layerRaw) ? layerRaw : (LAYER_BY_NUMBER[Number(layerRaw)] ?? 'Background'),
    origin: ORIGIN_BY_NUMBER[Number(originRaw)] ?? originRaw,
    file: unquote(parts[3]!),
    x: Number(parts[4]) || 0,
    y: Number(parts[5]) || 0,
    frameCount: 1,
    frameDelay: 0,
    loopForever: true,
    commands: [],
  };
}

const ARITY: Record<string, number> = { F: 1, S: 1, R: 1, MX: 1, MY: 1, M: 2, V: 2, C: 3 };

function command(parts: string[]): StoryboardCommand | undefined {
  const type = parts[0]!.trim();
  if (type === 'L') {
    const start = Number(parts[1]);
    if (!Number.isFinite(start)) return undefined;
    return {
      type,
      easing: 0,
      start,
      end: start,
      params: [],
      flag: '',
      loopCount: Math.max(1, Number(parts[2]) || 1),
      children: [],
    };
  }
  if (type === 'T') {
    return {
      type,
      easing: 0,
      start: Number(parts[2]) || 0,
      end: Number(parts[3]) || 0,
      params: [],
      flag: parts[1] ?? '',
      loopCount: 0,
      children: [],
    };
  }
  const easing = Number(parts[1]) || 0;
  const start = Number(parts[2]);
  const end = parts[3]?.trim() === '' || parts[3] === undefined ? start : Number(parts[3]);
  if (!Number.isFinite(start) || !Number.isFinite(end)) return undefined;
  if (type === 'P') {
    return {
      type,
      easing,
      start,
      end,
      params: [],
      flag: (parts[4] ?? '').trim(),
      loopCount: 0,
      children: [],
    };
  }
  const arity = ARITY[type];
  if (!arity) return undefined;
  const values = parts.slice(4).map(Number);
  if (values.length < arity || values.some((v) => !Number.isFinite(v))) return undefined;
  // "start values, then end values"; with several groups the command chains
  const params =
    values.length >= arity * 2 ? values : [...values.slice(0, arity), ...values.slice(0, arity)];
  return { type, easing, start, end, params, flag: '', loopCount: 0, children: [] };
}

/** Reads the [Variables] and [Events] sections of a .osb file. */
export function parseStoryboardFile(text: string): StoryboardElement[] {
  const variables = new Map<string, string>();
  const events: string[] = [];
  let section = '';
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t.startsWith('[') && t.endsWith(']')) {
      section = t.slice(1, -1);
      continue;
    }
    if (section === 'Variables') {
      const eq = t.indexOf('=');
      if (t.startsWith('$') && eq > 0) variables.set(t.slice(0, eq), t.slice(eq + 1));
    } else if (section === 'Events') events.push(line);
  }
  // longest names first so $ab is not replaced by $a
  const sorted = new Map([...variables].sort((a, b) => b[0].length - a[0].length));
  return parseStoryboardLines(events, sorted);
}
