// first: the canvas library's allocator settings must be in the environment before it loads
import './render/canvas-allocator.js';
export { decodeReplay } from './replay/decode-replay.js';
export type { DecodeReplayOptions } from './replay/decode-replay.js';
export { encodeReplay } from './replay/encode-replay.js';
export { ReplayDecodeError } from './replay/replay-decode-error.js';
export type { ReplayDecodeErrorCode } from './replay/replay-decode-error.js';
export type { Replay, ReplayFrame, LifeBarPoint } from './replay/types.js';
export { modsToString, modsSpeed, Mods } from './replay/mods.js';
export { parseBeatmap, BeatmapParseError } from './beatmap/parse-beatmap.js';
export { parseStoryboardFile } from './beatmap/storyboard.js';
export type {
  Beatmap,
  HitObject,
  TimingPoint,
  SliderData,
  StoryboardElement,
  StoryboardCommand,
} from './beatmap/types.js';
export { beatmapMd5 } from './beatmap/beatmap-md5.js';
export { BeatmapLibrary } from './beatmap/beatmap-library.js';
export type { BeatmapLibraryOptions } from './beatmap/beatmap-library.js';
export { judgeReplay, judgePlayable } from './judgement/judge-replay.js';
export type {
  JudgementResult,
  JudgementSummary,
  JudgementEvent,
  HitResult,
} from './judgement/types.js';
export { preparePlayable, sliderPositionAt } from './beatmap/playable.js';
export type { PlayableBeatmap, PlayObject } from './beatmap/playable.js';
export {
  renderReplay,
  RenderAbortedError,
  defaultRenderOptions,
  normalizeBgDim,
} from './render/render-replay.js';
export type { RenderOptions, RenderInput, RenderResult } from './render/render-replay.js';
export { defaultExtraRenderOptions } from './render/render-options.js';
export type { ExtraRenderOptionKey } from './render/render-options.js';
export { resolveFfmpeg, type FfmpegPaths } from './ffmpeg/resolve-ffmpeg.js';
export { loadSkin, parseSkinIni } from './skin/load-skin.js';
export { extractOsk, skinFolderPrefix } from './skin/extract-osk.js';
export type { Skin, SkinIni } from './skin/load-skin.js';
export { playfieldTransform } from './render/frame-drawer.js';
export { CursorTrack } from './render/cursor-track.js';
export { EncoderError } from './render/ffmpeg-encoder.js';
