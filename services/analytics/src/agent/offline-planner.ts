/**
 * The offline planner: answers when no LLM is configured. It picks tools from keywords in
 * the question (with a year, a "top N" or a decile when given), runs them through the
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
  args: Record<string, number>;
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

function planTools(question: string): Plan[] {
  const plans: Plan[] = [];
  for (const { tool, pattern } of RULES) {
    if (!pattern.test(question)) continue;
    const args: Record<string, number> = {};
    const year = /\b(19|20)\d{2}\b/.exec(question);
    const top = /\btop\s+(\d{1,3})\b/i.exec(question);
    const decile = /\bdecile\s+(\d{1,2})\b/i.exec(question);
    if (tool === 'monthly_trends' && year) args.year = Number(year[0]);
    if (tool === 'top_customers') {
      args.limit = Math.min(Math.max(Number(top?.[1] ?? 5), 1), 100);
      if (decile && Number(decile[1]) >= 1 && Number(decile[1]) <= 10)
        args.decile = Number(decile[1]);
    }
    if (tool === 'category_analysis') args.limit = 5;
    plans.push({ tool, args });
  }
  // A question the rules do not recognise still gets figures rather than a guess.
  return plans.length > 0 ? plans.slice(0, 3) : [{ tool: 'sales_summary', args: {} }];
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

function describe(plan: Plan, page: Page): string {
  const rows = page.data;
  if (rows.length === 0) return `${plan.tool} found no matching rows.`;
  switch (plan.tool) {
    case 'sales_summary': {
      const k = rows[0]!;
      return `All time: ${k.total_lifetime_orders} orders from ${k.total_unique_customers} unique customers, revenue ${brl(k.total_lifetime_revenue)}, average order value ${brl(k.average_order_value)}.`;
    }
    case 'monthly_trends': {
      const best = [...rows].sort((a, b) => Number(b.total_revenue) - Number(a.total_revenue))[0]!;
      const latest = rows[0]!;
      return `Monthly sales (${rows.length} months${plan.args.year ? ` of ${plan.args.year}` : ''}): the best month is ${month(best)} with ${brl(best.total_revenue)} from ${best.total_orders} orders; the latest, ${month(latest)}, had ${brl(latest.total_revenue)} from ${latest.total_orders} orders.`;
    }
    case 'yoy_growth':
      return `Revenue by year: ${rows
        .map(
          (r) =>
            `${r.calendar_year}: ${brl(r.current_revenue)}${r.yoy_growth_percentage === null ? '' : ` (${pct(r.yoy_growth_percentage)} vs the previous year)`}`,
        )
        .join('; ')}.`;
    case 'top_customers':
      return `Top ${rows.length} customers by lifetime value${plan.args.decile ? ` in decile ${plan.args.decile}` : ''}: ${rows
        .map(
          (r) =>
            `#${r.ltv_rank} ${String(r.customer_sk).slice(0, 8)}… ${brl(r.lifetime_value)} (${r.total_orders} orders)`,
        )
        .join(', ')}.`;
    case 'category_analysis': {
      const above = rows.filter((r) => Number(r.freight_to_revenue_ratio) > 20).length;
      return `Highest freight burden: ${rows
        .map((r) => `${r.product_category_name} ${pct(r.freight_to_revenue_ratio)}`)
        .join(
          ', ',
        )}; ${above} of these are above 20%, candidates for a shipping or pricing change.`;
    }
    default:
      return `${plan.tool}: ${JSON.stringify(rows.slice(0, 3))}`;
  }
}
