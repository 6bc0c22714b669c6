/**
 * The offline planner: answers when no LLM is configured. It picks tools from keywords in
 * the question (honouring the counts, years and decile it names), runs them through the
 * same MCP toolbox, and states the answer from their results only. Every answer says it
 * comes from the offline planner.
 */
import type { AgentAnswer, ToolCallRecord } from './run-agent.js';
import type { Toolbox } from './mcp-toolbox.js';

const OFFLINE_PREFIX = 'Offline planner (no language model is configured):';

type Row = Record<string, number | string | null>;
interface Page {
  data: Row[];
  meta: { total: number };
}

interface Plan {
  tool: string;
  args: Record<string, number | string>;
  /** How many rows the answer names (the question's count), when not the tool's `limit`. */
  show?: number;
  /** Years the question names that the tool has no filter for: the answer keeps to them. */
  years?: number[];
  /** The tool's figures are all-time although the question names a year: say so. */
  allTime?: boolean;
}

const RULES: Array<{ tool: string; pattern: RegExp }> = [
  { tool: 'category_analysis', pattern: /categor|freight|shipping|frete|burden|pricing/i },
  { tool: 'top_customers', pattern: /customer|client|ltv|lifetime|spender|decile|vip|loyal/i },
  {
    tool: 'yoy_growth',
    pattern: /yoy|year[- ]over[- ]year|growth|grow|annual|per year|yearly|by year/i,
  },
  { tool: 'monthly_trends', pattern: /month|trend|season|peak|november|december|black friday/i },
  {
    tool: 'sales_summary',
    pattern: /kpi|summary|overview|total|revenue|orders|average|aov|how (much|many)/i,
  },
];

const NUMBER_WORDS = [
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
];
const COUNT = `(\\d{1,3}|${NUMBER_WORDS.join('|')})`;
const RANKED = 'top|best|worst|first|last|highest|lowest|biggest|largest|bottom|latest|most recent';
const NOUNS = 'customers?|clients?|spenders?|categor(?:y|ies)|months?|years?';
/** "top 3", "best ten", "last 6 months", "3 customers". */
const COUNT_PATTERNS = [
  new RegExp(`\\b(?:${RANKED})\\s+${COUNT}\\b`, 'i'),
  new RegExp(
    `\\b${COUNT}\\s+(?:(?:${RANKED}|most|least)\\s+)?(?:[a-z-]+\\s+)?(?:${NOUNS})\\b`,
    'i',
  ),
];
const MAX_COUNT = 100;

/** The count the question names ("top 3", "five categories"), bounded; else undefined. */
export function countIn(question: string): number | undefined {
  const text = question.replace(/\bdecile\s+\d{1,2}\b/gi, ''); // "decile 2 customers" names no count
  for (const pattern of COUNT_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const word = match[1]!.toLowerCase();
    const n = /^\d+$/.test(word) ? Number(word) : NUMBER_WORDS.indexOf(word) + 1;
    if (n >= 1) return Math.min(n, MAX_COUNT);
  }
  return undefined;
}

/** The calendar years the question names, in order, without repeats. */
export function yearsIn(question: string): number[] {
  return [
    ...new Set([...question.matchAll(/\b(?:19|20)\d{2}\b/g)].map((m) => Number(m[0]))),
  ].sort();
}

/** Whether the question asks for the newest rows ("last 6 months") rather than the best. */
const wantsLatest = (question: string) => /\b(last|latest|most recent|recent)\b/i.test(question);

function planFor(tool: string, question: string): Plan {
  const count = countIn(question);
  const years = yearsIn(question);
  switch (tool) {
    case 'monthly_trends': {
      const args: Plan['args'] = {};
      if (years.length === 1) args.year = years[0]!;
      if (years.length > 1) {
        args.from = `${years[0]}-01`;
        args.to = `${years[years.length - 1]}-12`;
      }
      // "last 6 months": the newest six; "best 3 months": all months, ranked, three named
      if (count && wantsLatest(question)) return { tool, args: { ...args, limit: count } };
      return { tool, args, ...(count ? { show: count } : {}) };
    }
    case 'yoy_growth':
      if (years.length) return { tool, args: {}, years };
      return { tool, args: count ? { limit: count } : {} };
    case 'top_customers': {
      const args: Plan['args'] = { limit: count ?? 5 };
      if (/\b(worst|lowest|bottom|least)\b/i.test(question)) args.sort = 'ltv_asc';
      const decile = /\bdecile\s+(\d{1,2})\b/i.exec(question);
      if (decile && Number(decile[1]) >= 1 && Number(decile[1]) <= 10)
        args.decile = Number(decile[1]);
      return { tool, args, allTime: years.length > 0 };
    }
    case 'category_analysis':
      return { tool, args: { limit: count ?? 5 }, allTime: years.length > 0 };
    default:
      // The KPIs are all-time; a year named turns the question into that year's months.
      if (years.length) return planFor('monthly_trends', question);
      return { tool, args: {} };
  }
}

function planTools(question: string): Plan[] {
  const plans = RULES.filter(({ pattern }) => pattern.test(question)).map(({ tool }) =>
    planFor(tool, question),
  );
  // One call per tool (a year turns the summary into monthly trends, which may be planned).
  const unique = plans.filter((plan, i) => plans.findIndex((p) => p.tool === plan.tool) === i);
  // A question the rules do not recognise still gets figures rather than a guess.
  return unique.length > 0 ? unique.slice(0, 3) : [{ tool: 'sales_summary', args: {} }];
}

export async function runOfflinePlanner(toolbox: Toolbox, question: string): Promise<AgentAnswer> {
  const records: ToolCallRecord[] = [];
  const sentences: string[] = [];
  const plans = planTools(question);
  if (!RULES.some(({ pattern }) => pattern.test(question))) {
    sentences.push('I did not recognise the question, so here is the overall summary.');
  }
  for (const plan of plans) {
    const outcome = await toolbox.call(plan.tool, plan.args);
    const result = outcome.isError ? outcome.text : (JSON.parse(outcome.text) as Page);
    records.push({ name: plan.tool, arguments: plan.args, is_error: outcome.isError, result });
    sentences.push(
      outcome.isError ? `${plan.tool} failed: ${outcome.text}` : describe(plan, result as Page),
    );
  }
  return {
    answer: `${OFFLINE_PREFIX} ${sentences.join(' ')}`,
    tool_calls: records,
    steps: records.length,
  };
}

const brl = (value: unknown) =>
  typeof value === 'number'
    ? `${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })} BRL`
    : 'n/a';
const pct = (value: unknown) => (typeof value === 'number' ? `${value.toFixed(2)}%` : 'n/a');
const month = (row: Row) => `${row.sales_year}-${String(row.sales_month).padStart(2, '0')}`;

const ALL_TIME = ' These are all-time figures: this view has no per-year breakdown.';

function describe(plan: Plan, page: Page): string {
  const rows = page.data;
  if (rows.length === 0) return `${plan.tool} found no matching rows.`;
  switch (plan.tool) {
    case 'sales_summary': {
      const k = rows[0]!;
      return `All time: ${k.total_lifetime_orders} orders from ${k.total_unique_customers} unique customers, revenue ${brl(k.total_lifetime_revenue)}, average order value ${brl(k.average_order_value)}.`;
    }
    case 'monthly_trends': {
      const span = plan.args.year
        ? ` of ${plan.args.year}`
        : plan.args.from
          ? ` from ${plan.args.from} to ${plan.args.to}`
          : '';
      const ranked = [...rows].sort((a, b) => Number(b.total_revenue) - Number(a.total_revenue));
      const latest = rows[0]!;
      const revenue = rows.reduce((sum, r) => sum + Number(r.total_revenue), 0);
      const orders = rows.reduce((sum, r) => sum + Number(r.total_orders), 0);
      const totals = span ? ` In all: ${brl(revenue)} from ${orders} orders.` : '';
      if (plan.show) {
        const best = ranked.slice(0, plan.show);
        return `The ${best.length} best months by revenue${span}: ${best.map((r) => `${month(r)} ${brl(r.total_revenue)} (${r.total_orders} orders)`).join(', ')}.${totals}`;
      }
      if (plan.args.limit) {
        return `The latest ${rows.length} months: ${rows.map((r) => `${month(r)} ${brl(r.total_revenue)} (${r.total_orders} orders)`).join(', ')}.`;
      }
      const best = ranked[0]!;
      return `Monthly sales (${rows.length} months${span}): the best month is ${month(best)} with ${brl(best.total_revenue)} from ${best.total_orders} orders; the latest, ${month(latest)}, had ${brl(latest.total_revenue)} from ${latest.total_orders} orders.${totals}`;
    }
    case 'yoy_growth': {
      const shown = plan.years
        ? rows.filter((r) => plan.years!.includes(Number(r.calendar_year)))
        : rows;
      const missing = (plan.years ?? []).filter(
        (y) => !shown.some((r) => Number(r.calendar_year) === y),
      );
      const none = missing.length ? ` No sales in ${missing.join(', ')}.` : '';
      if (shown.length === 0) return `Revenue by year:${none}`;
      return `Revenue by year: ${shown
        .map(
          (r) =>
            `${r.calendar_year}: ${brl(r.current_revenue)}${r.yoy_growth_percentage === null ? '' : ` (${pct(r.yoy_growth_percentage)} vs the previous year)`}`,
        )
        .join('; ')}.${none}`;
    }
    case 'top_customers':
      return `${plan.args.sort === 'ltv_asc' ? 'Lowest' : 'Top'} ${rows.length} customers by lifetime value${plan.args.decile ? ` in decile ${plan.args.decile}` : ''}: ${rows
        .map(
          (r) =>
            `#${r.ltv_rank} ${String(r.customer_sk).slice(0, 8)}… ${brl(r.lifetime_value)} (${r.total_orders} orders)`,
        )
        .join(', ')}.${plan.allTime ? ALL_TIME : ''}`;
    case 'category_analysis': {
      const above = rows.filter((r) => Number(r.freight_to_revenue_ratio) > 20).length;
      return `The ${rows.length} categories with the highest freight burden: ${rows
        .map((r) => `${r.product_category_name} ${pct(r.freight_to_revenue_ratio)}`)
        .join(
          ', ',
        )}; ${above} of these are above 20%, candidates for a shipping or pricing change.${plan.allTime ? ALL_TIME : ''}`;
    }
    default:
      return `${plan.tool}: ${JSON.stringify(rows.slice(0, 3))}`;
  }
}
