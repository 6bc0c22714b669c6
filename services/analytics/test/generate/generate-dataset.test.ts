import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateDataset } from '../../src/generate/generate-dataset.js';
import { OLIST_FILES } from '../../src/olist-format.js';

/** Minimal CSV reader for the generated files (quoted fields never contain commas or quotes here). */
async function readCsv(path: string): Promise<Record<string, string>[]> {
  const [header, ...lines] = (await readFile(path, 'utf8')).trimEnd().split('\n');
  const columns = header!.split(',').map((c) => c.replaceAll('"', ''));
  return lines.map((line) =>
    Object.fromEntries(line.split(',').map((v, i) => [columns[i]!, v.replaceAll('"', '')])),
  );
}

describe('analytics generate', () => {
  let dir: string;
  let data: Record<string, Record<string, string>[]>;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'analytics-gen-'));
    await generateDataset({ outDir: join(dir, 'a'), orders: 4000, seed: 7 });
    data = {};
    for (const [table, spec] of Object.entries(OLIST_FILES))
      data[table] = await readCsv(join(dir, 'a', spec.file));
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  it('writes the five files with the exact Olist headers', async () => {
    for (const spec of Object.values(OLIST_FILES)) {
      const header = (await readFile(join(dir, 'a', spec.file), 'utf8')).split('\n')[0]!;
      assert.deepEqual(
        header.split(',').map((c) => c.replaceAll('"', '')),
        [...spec.columns],
      );
    }
    assert.equal(data.orders!.length, 4000);
  });

  it('is deterministic for a seed and differs for another', async () => {
    await generateDataset({ outDir: join(dir, 'b'), orders: 4000, seed: 7 });
    await generateDataset({ outDir: join(dir, 'c'), orders: 4000, seed: 8 });
    const file = OLIST_FILES.orderItems.file;
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((d) => readFile(join(dir, d, file), 'utf8')),
    );
    assert.equal(a, b);
    assert.notEqual(a, c);
  });

  it('spans 2016-09 to 2018-10 with growth and a November 2017 peak', () => {
    const months = new Map<string, number>();
    for (const order of data.orders!) {
      const month = order.order_purchase_timestamp!.slice(0, 7);
      months.set(month, (months.get(month) ?? 0) + 1);
    }
    const sorted = [...months.keys()].sort();
    assert.ok(sorted[0]! >= '2016-09' && sorted.at(-1)! <= '2018-10');
    const peak = [...months.entries()]
      .filter(([m]) => m.startsWith('2017'))
      .sort((a, b) => b[1] - a[1])[0]![0];
    assert.equal(peak, '2017-11');
    const sum = (prefix: string) =>
      [...months.entries()].filter(([m]) => m.startsWith(prefix)).reduce((t, [, n]) => t + n, 0);
    assert.ok(
      sum('2018-0') > sum('2017-0'),
      'January–September 2018 outsells January–September 2017',
    );
  });

  it('has multi-item orders, repeat customers, and missing and untranslated categories', () => {
    const itemsPerOrder = new Map<string, number>();
    for (const item of data.orderItems!)
      itemsPerOrder.set(item.order_id!, (itemsPerOrder.get(item.order_id!) ?? 0) + 1);
    assert.ok([...itemsPerOrder.values()].some((n) => n > 1));
    const ids = data.customers!.map((c) => c.customer_unique_id!);
    assert.ok(new Set(ids).size < ids.length, 'some customer_unique_id has several customer_id');
    assert.ok(data.products!.some((p) => p.product_category_name === ''));
    const translated = new Set(data.categoryTranslation!.map((t) => t.product_category_name));
    assert.ok(
      data.products!.some(
        (p) => p.product_category_name && !translated.has(p.product_category_name),
      ),
    );
  });

  it('prices and freight look like Olist: positive, skewed, two decimals', () => {
    const prices = data.orderItems!.map((i) => Number(i.price)).sort((a, b) => a - b);
    const median = prices[Math.floor(prices.length / 2)]!;
    const mean = prices.reduce((a, b) => a + b, 0) / prices.length;
    assert.ok(prices[0]! > 0 && median > 40 && median < 150, `median ${median}`);
    assert.ok(mean > median, 'right-skewed');
    assert.ok(
      data.orderItems!.every(
        (i) => /^\d+\.\d\d$/.test(i.price!) && /^\d+\.\d\d$/.test(i.freight_value!),
      ),
    );
  });
});
