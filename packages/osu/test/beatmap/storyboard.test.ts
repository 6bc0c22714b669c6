import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStoryboardFile } from '../../src/index.js';

test('storyboard: variables that expand each other without bound skip the line, fast', () => {
  // each variable names the next one 300 times: one line would grow to billions of characters
  const osb = [
    '[Variables]',
    `$va=${'$vb'.repeat(300)}`,
    `$vb=${'$vc'.repeat(300)}`,
    `$vc=${'$vd'.repeat(300)}`,
    `$vd=${'x'.repeat(300)}`,
    '$sprite=Sprite,Foreground,TopLeft',
    '[Events]',
    '$sprite,"dot.png",0,0',
    ' F,0,0,1000,1,0',
    'Sprite,Foreground,Centre,"$va",320,240',
    ' M,0,0,1000,0,0,100,100',
  ].join('\n');
  const started = performance.now();
  const elements = parseStoryboardFile(osb);
  assert.ok(performance.now() - started < 1000, 'substitution stayed bounded');
  assert.equal(elements.length, 1);
  assert.equal(elements[0]!.file, 'dot.png');
  assert.deepEqual(
    elements[0]!.commands.map((c) => c.type),
    ['F'],
    "the refused sprite's commands are not given to the one before",
  );
});
