/** What a skin may be called: the rule shared by skin uploads and render submissions. */

/** The built-in skin, always available, never stored. */
export const DEFAULT_SKIN = 'Default';

const SKIN_NAME_PATTERN = /^[a-zA-Z0-9_ -]+$/;
const MAX_SKIN_NAME_LENGTH = 64;

/** Letters, digits, spaces, hyphens and underscores; at most 64 characters. */
export function isValidSkinName(name: string): boolean {
  return name.length <= MAX_SKIN_NAME_LENGTH && SKIN_NAME_PATTERN.test(name);
}
