/**
 * A small hand-made Olist data set for the view tests: a repeat customer (two customer_ids,
 * one unique id), an order whose customer row is absent, a tie in lifetime value, a
 * zero-revenue customer and year, a missing year (2017), an untranslated category (kept
 * in Portuguese) and an empty one (`unknown`), a category exactly at the 1000 threshold and one just above,
 * whitespace to trim, a duplicated item line (the last wins), and rows to drop.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OLIST_FILES } from '../../src/olist-format.js';

export interface Sale {
  orderId: string;
  itemId: number;
  customerUniqueId: string;
  productId: string;
  category: string;
  /** YYYY-MM-DD */
  date: string;
  /** The order's status (lower case). */
  status: string;
  priceCents: number;
  freightCents: number;
}

export const CUSTOMERS: string[][] = [
  ['c1', 'u1', '01001', 'sao paulo', 'SP'],
  ['c2', 'u1', '01001', 'sao paulo', 'SP'],
  [' c3 ', 'u2', '20010', ' rio de janeiro ', 'rj'],
  ['c4', 'u3', '30110', 'belo horizonte', 'MG'],
  ['c5', 'u4', '80010', 'curitiba', 'PR'],
  ['c6', 'u5', '90010', 'porto alegre', 'RS'],
  ['c7', 'u6', '40010', 'salvador', 'BA'],
  ['c8', 'u7', '70040', 'brasilia', 'DF'],
  ['c10', 'u8', '60010', 'fortaleza', 'CE'],
  ['', 'u9', '60010', 'fortaleza', 'CE'],
];

export const PRODUCTS: string[][] = [
  ['p1', 'cama_mesa_banho'],
  ['p2', 'pc_gamer'],
  ['p3', ''],
  ['p4', '  telefonia  '],
  ['p5', 'alimentos'],
  ['p6', 'brinquedos'],
  ['p7', 'bebes'],
];

export const TRANSLATIONS: string[][] = [
  ['cama_mesa_banho', 'bed_bath_table'],
  ['telefonia', 'telephony'],
  ['alimentos', 'food'],
  ['brinquedos', 'toys'],
  ['bebes', 'baby'],
];

/** order id, customer id, purchase timestamp, status (default delivered) */
export const ORDERS: string[][] = [
  ['o1', 'c8', '2015-06-01 10:00:00'],
  ['o2', 'c1', '2016-03-10 09:30:00'],
  ['o3', 'c2', '2016-11-20 23:59:59'],
  ['o4', 'c3', '2018-01-15 12:00:00'],
  ['o5', 'c4', '2018-07-04 08:00:00'],
  ['o6', 'c5', '2018-07-09 18:00:00', 'canceled'],
  ['o7', 'c6', '2019-02-02 11:11:11'],
  ['o8', 'c7', '2019-02-03 11:11:11', 'Shipped'],
  ['o9', 'c9', '2019-05-05 05:05:05'],
  ['o10', 'c10', '2019-06-01 00:00:00'],
  ['o11', '', '2019-06-02 00:00:00'],
  ['o12', 'c10', 'not a date'],
];

/** order id, item id, product id, price, freight */
export const ITEMS: string[][] = [
  ['o1', '1', 'p7', '0.00', '5.00'],
  ['o2', '1', 'p1', '499.00', '49.00'],
  ['o2', '2', 'p1', '250.50', '20.25'],
  ['o3', '1', 'p4', '300.00', '90.10'],
  ['o4', '1', 'p4', '420.00', '100.00'],
  ['o4', '2', 'p5', '600.00', '30.00'],
  ['o5', '1', 'p5', '400.00', '20.00'],
  ['o6', '1', 'p6', '1000.01', '300.00'],
  ['o7', '1', 'p2', '5000.00', '10.00'],
  ['o8', '1', 'p3', '1050.50', '1.00'],
  ['o9', '1', 'p1', '330.25', '12.12'],
  ['o10', '1', 'p4', '800.00', '250.75'],
  ['o2', '1', 'p1', '500.00', '50.00'], // duplicate key: this later line wins
  ['', '1', 'p1', '10.00', '1.00'], // null key: dropped
  ['o404', '1', 'p1', '10.00', '1.00'], // no such order: dropped
  ['o11', '1', 'p1', '10.00', '1.00'], // its order has no customer: dropped
  ['o12', '1', 'p1', '10.00', '1.00'], // its order has no purchase time: dropped
  ['o10', '2', 'p4', 'abc', '1.00'], // unreadable price: dropped
];

export const DROPPED = { invalid: 2, duplicate: 1, withoutOrder: 3 };

/** The sales that must reach gold, as the test reads the rules of silver. */
export function expectedSales(): Sale[] {
  const customerOf = new Map(
    CUSTOMERS.filter((c) => c[0]!.trim()).map((c) => [c[0]!.trim(), c[1]!.trim()]),
  );
  const translation = new Map(TRANSLATIONS.map(([pt, en]) => [pt!, en!]));
  const categoryOf = new Map(
    PRODUCTS.map(([id, pt]) => [id!, translation.get(pt!.trim()) ?? (pt!.trim() || 'unknown')]),
  );
  const orders = new Map(
    ORDERS.filter(([, customer, ts]) => customer && /^\d{4}-/.test(ts!)).map(
      ([id, customer, ts, status]) => [
        id!,
        {
          customer: customer!,
          date: ts!.slice(0, 10),
          status: (status ?? 'delivered').toLowerCase(),
        },
      ],
    ),
  );
  const byKey = new Map<string, Sale>();
  for (const [orderId, itemId, productId, price, freight] of ITEMS) {
    const order = orders.get(orderId!);
    if (!orderId || !order || !/^\d+\.\d\d$/.test(price!)) continue;
    byKey.set(`${orderId}/${itemId}`, {
      orderId: orderId!,
      itemId: Number(itemId),
      customerUniqueId: customerOf.get(order.customer) ?? order.customer,
      productId: productId!,
      category: categoryOf.get(productId!) ?? 'unknown',
      date: order.date,
      status: order.status,
      priceCents: Math.round(Number(price) * 100),
      freightCents: Math.round(Number(freight) * 100),
    });
  }
  return [...byKey.values()];
}

export async function writeHandMadeData(
  dir: string,
  items: string[][] = ITEMS,
  orders: string[][] = ORDERS,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const write = async (table: keyof typeof OLIST_FILES, rows: string[][]) => {
    const spec = OLIST_FILES[table];
    const lines = rows.map((row) => spec.columns.map((_, i) => quote(row[i] ?? '')).join(','));
    await writeFile(join(dir, spec.file), `${spec.columns.join(',')}\n${lines.join('\n')}\n`);
  };
  await write('customers', CUSTOMERS);
  await write(
    'products',
    PRODUCTS.map(([id, category]) => [id!, category!, '40', '300', '1', '500', '20', '10', '15']),
  );
  await write('categoryTranslation', TRANSLATIONS);
  await write(
    'orders',
    orders.map(([id, customer, ts, status]) => [
      id!,
      customer!,
      status ?? 'delivered',
      ts!,
      ts!,
      '',
      '',
      '',
    ]),
  );
  await write(
    'orderItems',
    items.map(([o, i, p, price, freight]) => [
      o!,
      i!,
      p!,
      's1',
      '2019-01-01 00:00:00',
      price!,
      freight!,
    ]),
  );
}

function quote(value: string): string {
  return /[",\n]/.test(value) || value.trim() !== value
    ? `"${value.replaceAll('"', '""')}"`
    : value;
}
