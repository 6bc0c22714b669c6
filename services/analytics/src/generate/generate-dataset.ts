/**
 * `analytics generate`: writes a synthetic data set in the exact Olist file format (same
 * files, columns, quoting and value formats), deterministic for a given seed. Orders run
 * from 2016-09 to 2018-10 with the real monthly volume; it has multi-item orders, repeat
 * customers (several `customer_id` per `customer_unique_id`), products without a category
 * or with an untranslated one, orders without items, and log-normal prices and freight.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OLIST_FILES } from '../olist-format.js';
import { createRandom, type Random } from './random.js';
import {
  CATEGORIES,
  MISSING_CATEGORY_SHARE,
  MONTHLY_ORDER_WEIGHTS,
  ORDER_STATUS_WEIGHTS,
  ORDER_STATUSES,
  STATES,
} from './reference-data.js';

export interface GenerateOptions {
  /** Folder the five CSV files are written to (created when missing). */
  outDir: string;
  /** Number of orders. @defaultValue 20000 */
  orders?: number;
  /** Seed of the pseudo-random source. @defaultValue 42 */
  seed?: number;
}

export interface GenerateResult {
  files: Record<string, number>;
}

/** Share of unique customers that come back for more orders. */
const REPEAT_CUSTOMER_SHARE = 0.06;
const ITEM_COUNTS = [1, 2, 3, 4, 5, 6];
const ITEM_COUNT_WEIGHTS = [90, 7.5, 1.5, 0.5, 0.3, 0.2];

export async function generateDataset(options: GenerateOptions): Promise<GenerateResult> {
  const orderCount = options.orders ?? 20_000;
  const random = createRandom(options.seed ?? 42);
  await mkdir(options.outDir, { recursive: true });

  const products = makeProducts(random, Math.max(10, Math.round(orderCount / 3)));
  const sellers = Array.from({ length: Math.max(5, Math.round(orderCount / 33)) }, () =>
    random.hexId(),
  );
  const rows = {
    orders: [] as string[],
    orderItems: [] as string[],
    customers: [] as string[],
  };
  const uniqueCustomers: Array<{ id: string; zip: number; city: string; state: string }> = [];

  const perMonth = allocate(
    orderCount,
    MONTHLY_ORDER_WEIGHTS.map(([, weight]) => weight),
  );
  MONTHLY_ORDER_WEIGHTS.forEach(([month], index) => {
    for (let n = 0; n < perMonth[index]!; n++) {
      const purchase = randomTimeInMonth(random, month);
      const customerId = random.hexId();
      const returning = uniqueCustomers.length > 0 && random.next() < REPEAT_CUSTOMER_SHARE;
      const person = returning ? random.pick(uniqueCustomers) : newCustomer(random);
      if (!returning) uniqueCustomers.push(person);
      rows.customers.push(
        csv([customerId, person.id, zip(person.zip), person.city, person.state], [2]),
      );

      const orderId = random.hexId();
      const status = random.weighted(ORDER_STATUSES, ORDER_STATUS_WEIGHTS);
      rows.orders.push(csv([orderId, customerId, status, ...orderDates(random, purchase, status)]));

      // Most unavailable orders never got items in the real data.
      if (status === 'unavailable' && random.next() < 0.9) continue;
      const itemCount = random.weighted(ITEM_COUNTS, ITEM_COUNT_WEIGHTS);
      let product = pickProduct(random, products);
      const seller = random.pick(sellers);
      for (let item = 1; item <= itemCount; item++) {
        if (item > 1 && random.next() < 0.5) product = pickProduct(random, products);
        const price = itemPrice(random, product.medianPrice);
        const freight = freightValue(random, price);
        rows.orderItems.push(
          csv(
            [
              orderId,
              String(item),
              product.id,
              seller,
              timestamp(addDays(purchase, 6)),
              price.toFixed(2),
              freight.toFixed(2),
            ],
            [1, 5, 6],
          ),
        );
      }
    }
  });

  const translations = CATEGORIES.filter((c) => c.english !== undefined).map((c) =>
    csv([c.name, c.english!], [], false),
  );
  const files: Array<[keyof typeof OLIST_FILES, string[]]> = [
    ['orders', rows.orders],
    ['orderItems', rows.orderItems],
    ['customers', rows.customers],
    ['products', products.map((p) => p.line)],
    ['categoryTranslation', translations],
  ];
  const counts: Record<string, number> = {};
  for (const [table, lines] of files) {
    const spec = OLIST_FILES[table];
    const quoteHeader = table !== 'categoryTranslation';
    const header = spec.columns.map((c) => (quoteHeader ? `"${c}"` : c)).join(',');
    await writeFile(join(options.outDir, spec.file), `${header}\n${lines.join('\n')}\n`);
    counts[spec.file] = lines.length;
  }
  return { files: counts };
}

interface Product {
  id: string;
  medianPrice: number;
  line: string;
}

function makeProducts(random: Random, count: number): Product[] {
  return Array.from({ length: count }, () => {
    const id = random.hexId();
    const category = random.weighted(
      CATEGORIES,
      CATEGORIES.map((c) => c.weight),
    );
    const missing = random.next() < MISSING_CATEGORY_SHARE;
    const weight = Math.max(50, Math.round(Math.exp(Math.log(700) + 1.1 * random.normal())));
    const fields = missing
      ? [id, '', '', '', '']
      : [
          id,
          category.name,
          String(random.int(10, 70)),
          String(random.int(50, 3000)),
          String(random.int(1, 8)),
        ];
    const size = () => String(random.int(11, 80));
    return {
      id,
      medianPrice: category.medianPrice,
      line: csv([...fields, String(weight), size(), size(), size()], [2, 3, 4, 5, 6, 7, 8]),
    };
  });
}

/** Zipf-like popularity: a few products sell a lot, most rarely. */
function pickProduct(random: Random, products: Product[]): Product {
  return products[Math.floor(products.length * random.next() ** 2.2)]!;
}

function newCustomer(random: Random) {
  const [state, , cities] = random.weighted(
    STATES,
    STATES.map(([, share]) => share),
  );
  const [city, zipBase] = random.pick(cities);
  return { id: random.hexId(), zip: zipBase + random.int(0, 899), city, state };
}

function itemPrice(random: Random, median: number): number {
  const price = Math.exp(Math.log(median) + 0.95 * random.normal());
  return Math.min(6735, Math.max(0.85, Math.round(price * 100) / 100));
}

function freightValue(random: Random, price: number): number {
  if (random.next() < 0.004) return 0;
  const freight = Math.exp(Math.log(14 + price * 0.04) + 0.45 * random.normal());
  return Math.min(409.68, Math.round(freight * 100) / 100);
}

function orderDates(random: Random, purchase: Date, status: string): string[] {
  const approved = status === 'created' ? undefined : addMinutes(purchase, random.int(10, 60 * 30));
  const shippedStatuses = ['delivered', 'shipped'];
  const carrier =
    approved && shippedStatuses.includes(status) ? addDays(approved, random.int(1, 5)) : undefined;
  const delivered =
    carrier && status === 'delivered' ? addDays(carrier, random.int(3, 20)) : undefined;
  const estimated = addDays(purchase, random.int(18, 35));
  estimated.setUTCHours(0, 0, 0, 0);
  return [
    timestamp(purchase),
    timestamp(approved),
    timestamp(carrier),
    timestamp(delivered),
    timestamp(estimated),
  ];
}

function randomTimeInMonth(random: Random, month: string): Date {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const start = Date.UTC(year, monthNumber - 1, 1);
  const end = Date.UTC(year, monthNumber, 1);
  return new Date(start + Math.floor((random.next() * (end - start)) / 1000) * 1000);
}

/** Splits `total` by `weights` into integers that add up to `total` (largest remainder). */
function allocate(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (w / sum) * total);
  const counts = exact.map(Math.floor);
  const order = exact
    .map((value, index) => [value - Math.floor(value), index] as const)
    .sort((a, b) => b[0] - a[0]);
  const missing = total - counts.reduce((a, b) => a + b, 0);
  for (let i = 0; i < missing; i++) {
    const index = order[i]![1];
    counts[index] = counts[index]! + 1;
  }
  return counts;
}

function addMinutes(date: Date, minutes: number): Date {
  return new Date(date.getTime() + minutes * 60_000);
}

function addDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * 86_400_000 + (date.getUTCSeconds() % 7) * 3_600_000);
}

function timestamp(date: Date | undefined): string {
  return date ? date.toISOString().slice(0, 19).replace('T', ' ') : '';
}

function zip(prefix: number): string {
  return String(prefix).padStart(5, '0');
}

/** One CSV line: text quoted as in the published files, except the given (numeric) columns. */
function csv(values: string[], unquoted: number[] = [], quote = true): string {
  return values
    .map((value, index) => {
      if (!quote || unquoted.includes(index) || value === '') return value;
      return `"${value.replaceAll('"', '""')}"`;
    })
    .join(',');
}
