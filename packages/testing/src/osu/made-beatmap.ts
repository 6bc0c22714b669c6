/**
 * The beatmap of the made fixture set: under two seconds of osu! standard with every
 * kind of object the renderer and the judgement handle (circles, a linear, a perfect-
 * circle slider with a repeat, a Bézier slider, a spinner), an uninherited timing
 * point and two inherited ones (slider velocity x2, then x1), combo colours, a background, and a
 * storyboard in the beatmap's own events and in a separate `.osb`.
 */

export const MADE_BEATMAP_TITLE = 'Made For Tests';

export const MADE_BEATMAP_OSU = `osu file format v14

[General]
AudioFilename: audio.wav
AudioLeadIn: 0
PreviewTime: 1000
Countdown: 0
SampleSet: Normal
StackLeniency: 0.7
Mode: 0
LetterboxInBreaks: 0
WidescreenStoryboard: 0

[Editor]
DistanceSpacing: 1
BeatDivisor: 4
GridSize: 8

[Metadata]
Title:${MADE_BEATMAP_TITLE}
TitleUnicode:${MADE_BEATMAP_TITLE}
Artist:Replay Platform
ArtistUnicode:Replay Platform
Creator:packages-testing
Version:Normal
Source:
Tags:generated test fixture
BeatmapID:0
BeatmapSetID:-1

[Difficulty]
HPDrainRate:5
CircleSize:4
OverallDifficulty:5
ApproachRate:10
SliderMultiplier:2.8
SliderTickRate:2

[Events]
//Background and Video events
0,0,"bg.png",0,0
//Break Periods
//Storyboard Layer 0 (Background)
Sprite,Background,Centre,"sb-dot.png",320,240
 F,0,0,4000,0.3,0.3
//Storyboard Layer 1 (Fail)
//Storyboard Layer 2 (Pass)
//Storyboard Layer 3 (Foreground)
//Storyboard Layer 4 (Overlay)
//Storyboard Sound Samples

[TimingPoints]
600,300,4,1,0,60,1,0
1200,-50,4,1,0,60,0,0
1600,-100,4,1,0,60,0,0

[Colours]
Combo1 : 255,128,0
Combo2 : 0,160,255

[HitObjects]
96,96,600,5,0,0:0:0:0:
256,96,680,1,0,0:0:0:0:
416,96,760,1,0,0:0:0:0:
96,288,840,6,0,L|376:288,1,280
256,288,1200,2,0,P|326:218|396:288,2,210
416,240,1460,2,0,B|470:200|416:140|470:100,1,140
300,100,1600,1,0,0:0:0:0:
256,192,1650,12,0,2100,0:0:0:0:
256,192,2200,5,0,0:0:0:0:
`;

/** A storyboard file beside the beatmap: one sprite moving across the top, fading in. */
export const MADE_STORYBOARD_OSB = `[Events]
//Background and Video events
//Storyboard Layer 0 (Background)
//Storyboard Layer 1 (Fail)
//Storyboard Layer 2 (Pass)
//Storyboard Layer 3 (Foreground)
Sprite,Foreground,Centre,"sb-dot.png",0,40
 M,0,0,4000,0,40,640,40
 F,0,0,1000,0,1
//Storyboard Layer 4 (Overlay)
//Storyboard Sound Samples
`;
