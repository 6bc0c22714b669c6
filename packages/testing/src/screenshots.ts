/**
 * A page test's screenshot, kept as its artifact: written to a temporary folder of its
 * own (the path is printed). With `UPDATE_SCREENSHOTS=1` the picture of the visible
 * screen is also written to `docs/screenshots/NAME.png`, which the READMEs show; it must
 * stay under 200 kB (the repository keeps binaries small).
 */
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';

const DOCS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
export const MAX_DOC_SCREENSHOT_BYTES = 200 * 1024;

export async function keepScreenshot(page: Page, name: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), `screenshot-${name}-`)), `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`${name} screenshot: ${path}`);
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    await page.evaluate('window.scrollTo(0, 0)'); // the top of the page, as a reader lands
    const picture = await page.screenshot({ type: 'png' });
    if (picture.length > MAX_DOC_SCREENSHOT_BYTES) {
      throw new Error(
        `${name}.png is ${picture.length} bytes; docs screenshots stay under ${MAX_DOC_SCREENSHOT_BYTES}`,
      );
    }
    await mkdir(DOCS, { recursive: true });
    await writeFile(join(DOCS, `${name}.png`), picture);
  }
  return path;
}
