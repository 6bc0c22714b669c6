/**
 * The five views computed in plain TypeScript from a list of sales, straight from the
 * spec's rules, independently of the SQL: amounts in integer cents, ratios rounded half
 * away from zero on exact fractions.
 */
import { createHash } from 'node:crypto';
import type { Sale } from './hand-made-data.js';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** round(numerator / denominator, 0) half away from zero, on integers. */
function roundDiv(numerator: bigint, denominator: bigint): number {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = (2n * n + d) / (2n * d);
  return Number(negative ? -q : q);
}

const money = (cents: number) => cents / 100;
/** a / b * 100, 2 decimals. */
const percent = (a: number, b: number) => roundDiv(BigInt(a) * 10000n, BigInt(b)) / 100;
const sum = (sales: Sale[], pick: (s: Sale) => number) =>
  sales.reduce((total, s) => total + pick(s), 0);

function groupBy<K>(sales: Sale[], key: (s: Sale) => K): Map<K, Sale[]> {
  const groups = new Map<K, Sale[]>();
  for (const sale of sales) groups.set(key(sale), [...(groups.get(key(sale)) ?? []), sale]);
  return groups;
}

const distinct = (sales: Sale[], pick: (s: Sale) => string) => new Set(sales.map(pick)).size;

export function expectedKpis(sales: Sale[]) {
  const orders = distinct(sales, (s) => s.orderId);
  const revenue = sum(sales, (s) => s.priceCents);
  return [
    {
      total_lifetime_orders: orders,
      total_unique_customers: distinct(sales, (s) => s.customerUniqueId),
      total_lifetime_revenue: money(revenue),
      average_order_value: orders === 0 ? null : roundDiv(BigInt(revenue), BigInt(orders)) / 100,
    },
  ];
}

export function expectedMonthly(sales: Sale[]) {
  const groups = groupBy(sales, (s) => s.date.slice(0, 7));
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? 1 : -1))
    .map(([month, rows]) => ({
      sales_year: Number(month.slice(0, 4)),
      sales_month: Number(month.slice(5, 7)),
      total_orders: distinct(rows, (s) => s.orderId),
      total_items_sold: rows.length,
      total_revenue: money(sum(rows, (s) => s.priceCents)),
      total_freight_cost: money(sum(rows, (s) => s.freightCents)),
    }));
}

export function expectedYoy(sales: Sale[]) {
  const years = [...groupBy(sales, (s) => Number(s.date.slice(0, 4))).entries()]
    .map(([year, rows]) => [year, sum(rows, (s) => s.priceCents)] as const)
    .sort(([a], [b]) => a - b);
  return years
    .map(([year, revenue], index) => {
      const previous = index > 0 ? years[index - 1]![1] : null;
      return {
        calendar_year: year,
        current_revenue: money(revenue),
        previous_year_revenue: previous === null ? null : money(previous),
        yoy_growth_percentage:
          previous === null || previous === 0 ? null : percent(revenue - previous, previous),
      };
    })
    .reverse();
}

export function expectedLtv(sales: Sale[]) {
  const customers = [...groupBy(sales, (s) => sha256(s.customerUniqueId)).entries()]
    .map(([sk, rows]) => ({
      sk,
      orders: distinct(rows, (s) => s.orderId),
      cents: sum(rows, (s) => s.priceCents),
    }))
    .filter((c) => c.cents > 0)
    .sort((a, b) => b.cents - a.cents || (a.sk < b.sk ? -1 : 1));
  const n = customers.length;
  const perBucket = Math.floor(n / 10);
  const remainder = n % 10;
  let rank = 0;
  let last: number | undefined;
  return customers.map((c, i) => {
    if (c.cents !== last) rank += 1;
    last = c.cents;
    const decile =
      i < (perBucket + 1) * remainder
        ? Math.floor(i / (perBucket + 1)) + 1
        : Math.floor((i - remainder) / perBucket) + 1;
    return {
      customer_sk: c.sk,
      total_orders: c.orders,
      lifetime_value: money(c.cents),
      ltv_decile: decile,
      ltv_rank: rank,
    };
  });
}

export function expectedFreight(sales: Sale[]) {
  return [...groupBy(sales, (s) => s.category).entries()]
    .filter(([category]) => category !== 'unknown')
    .map(([category, rows]) => ({
      category,
      rows,
      revenue: sum(rows, (s) => s.priceCents),
      freight: sum(rows, (s) => s.freightCents),
    }))
    .filter((c) => c.revenue > 100000)
    .map((c) => ({
      product_category_name: c.category,
      items_sold: c.rows.length,
      total_revenue: money(c.revenue),
      total_freight_cost: money(c.freight),
      freight_to_revenue_ratio: c.revenue === 0 ? null : percent(c.freight, c.revenue),
    }))
    .sort(
      (a, b) =>
        (b.freight_to_revenue_ratio ?? -1) - (a.freight_to_revenue_ratio ?? -1) ||
        (a.product_category_name < b.product_category_name ? -1 : 1),
    );
}
