/** osu! stable mod bits and their two-letter acronyms. */
export const Mods = {
  NoFail: 1,
  Easy: 2,
  TouchDevice: 4,
  Hidden: 8,
  HardRock: 16,
  SuddenDeath: 32,
  DoubleTime: 64,
  Relax: 128,
  HalfTime: 256,
  Nightcore: 512,
  Flashlight: 1024,
  Autoplay: 2048,
  SpunOut: 4096,
  Autopilot: 8192,
  Perfect: 16384,
  Key4: 32768,
  Key5: 65536,
  Key6: 131072,
  Key7: 262144,
  Key8: 524288,
  FadeIn: 1048576,
  Random: 2097152,
  Cinema: 4194304,
  TargetPractice: 8388608,
  Key9: 16777216,
  KeyCoop: 33554432,
  Key1: 67108864,
  Key3: 134217728,
  Key2: 268435456,
  ScoreV2: 536870912,
  Mirror: 1073741824,
} as const;

const ORDER: [number, string][] = [
  [Mods.Easy, 'EZ'],
  [Mods.NoFail, 'NF'],
  [Mods.HalfTime, 'HT'],
  [Mods.HardRock, 'HR'],
  [Mods.Perfect, 'PF'],
  [Mods.SuddenDeath, 'SD'],
  [Mods.Nightcore, 'NC'],
  [Mods.DoubleTime, 'DT'],
  [Mods.Hidden, 'HD'],
  [Mods.FadeIn, 'FI'],
  [Mods.Flashlight, 'FL'],
  [Mods.Relax, 'RX'],
  [Mods.Autopilot, 'AP'],
  [Mods.SpunOut, 'SO'],
  [Mods.Autoplay, 'AT'],
  [Mods.Cinema, 'CN'],
  [Mods.TouchDevice, 'TD'],
  [Mods.TargetPractice, 'TP'],
  [Mods.Random, 'RD'],
  [Mods.Mirror, 'MR'],
  [Mods.ScoreV2, 'V2'],
  [Mods.KeyCoop, 'CO'],
  [Mods.Key1, '1K'],
  [Mods.Key2, '2K'],
  [Mods.Key3, '3K'],
  [Mods.Key4, '4K'],
  [Mods.Key5, '5K'],
  [Mods.Key6, '6K'],
  [Mods.Key7, '7K'],
  [Mods.Key8, '8K'],
  [Mods.Key9, '9K'],
];

/** "HDHR", "HDNC" (NC implies DT, PF implies SD: only the stronger is shown), "NM" for none. */
export function modsToString(mods: number): string {
  let out = '';
  for (const [bit, name] of ORDER) {
    if ((mods & bit) === 0) continue;
    if (bit === Mods.DoubleTime && (mods & Mods.Nightcore) !== 0) continue;
    if (bit === Mods.SuddenDeath && (mods & Mods.Perfect) !== 0) continue;
    out += name;
  }
  return out || 'NM';
}

/** Playback speed the mods give: 1.5 for DT/NC, 0.75 for HT, else 1. */
export function modsSpeed(mods: number): number {
  if ((mods & (Mods.DoubleTime | Mods.Nightcore)) !== 0) return 1.5;
  if ((mods & Mods.HalfTime) !== 0) return 0.75;
  return 1;
}
