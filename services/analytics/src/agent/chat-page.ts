import { CLIENT_MODULE_PATH } from '@platform/core';

/**
 * The chat page: a static HTML shell and its script (no inline script, so a strict CSP
 * holds). It opens with example questions to click, each one the offline planner answers
 * (so they work without a language model too).
 */
export const EXAMPLE_QUESTIONS = [
  'What are our total revenue and orders?',
  'Top 3 customers by lifetime value',
  'The best 3 months of 2018',
  'Revenue growth year over year',
  'Top 5 categories by freight burden',
  'Customers in decile 1',
];

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const CHAT_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sales analytics chat</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1d2330; }
  main { max-width: 820px; margin: 0 auto; padding: 1rem; display: flex; flex-direction: column; height: 100vh; box-sizing: border-box; }
  header { display: flex; align-items: baseline; gap: 1rem; }
  header nav { margin-left: auto; }
  h1 { font-size: 1.2rem; margin: 0 0 .5rem; }
  #examples { display: flex; flex-wrap: wrap; gap: .5rem; margin: .5rem 0; }
  #examples p { width: 100%; margin: 0; color: #555; }
  #examples button { background: #fff; color: #0a5a8f; border: 1px solid #0072B2; font-size: .9rem; padding: .4rem .7rem; }
  #examples[hidden] { display: none; }
  button:focus-visible, input:focus-visible, a:focus-visible { outline: 3px solid #E69F00; outline-offset: 2px; }
  #log { flex: 1; overflow-y: auto; display: flex; flex-direction: column; gap: .6rem; padding: .5rem 0; }
  .msg { padding: .6rem .8rem; border-radius: .6rem; max-width: 85%; white-space: pre-wrap; line-height: 1.4; }
  .user { align-self: flex-end; background: #2f6fed; color: #fff; }
  .assistant { align-self: flex-start; background: #fff; border: 1px solid #dde1e8; }
  .error { align-self: flex-start; background: #fdecea; border: 1px solid #f5c2bd; }
  details { margin-top: .4rem; font-size: .85rem; color: #555; }
  details pre { white-space: pre-wrap; max-height: 12rem; overflow: auto; }
  .assistant:has(.result) { width: 85%; }
  .result { white-space: normal; margin-top: .6rem; }
  .chart-box { position: relative; height: 260px; }
  .result table { border-collapse: collapse; font-size: .85rem; font-variant-numeric: tabular-nums; }
  .result th, .result td { padding: .2rem .4rem; border-bottom: 1px solid #dde1e8; text-align: right; white-space: nowrap; }
  .result .scroll { overflow-x: auto; }
  form { display: flex; gap: .5rem; }
  input { flex: 1; padding: .6rem; font-size: 1rem; border: 1px solid #c5cad3; border-radius: .4rem; }
  button { padding: .6rem 1rem; font-size: 1rem; border: 0; border-radius: .4rem; background: #2f6fed; color: #fff; cursor: pointer; }
  button:disabled { opacity: .6; cursor: wait; }
</style>
</head>
<body>
<main>
  <header><h1>Sales analytics chat</h1><nav><a href="/">Dashboard</a></nav></header>
  <div id="log" aria-live="polite">
    <div id="examples" data-testid="examples">
      <p>Ask about revenue, months, growth, customers or freight — for example:</p>
      ${EXAMPLE_QUESTIONS.map((q) => `<button type="button" data-question="${escapeHtml(q)}">${escapeHtml(q)}</button>`).join('\n      ')}
    </div>
  </div>
  <form id="ask">
    <input id="question" name="message" autocomplete="off" maxlength="4000" placeholder="Ask about revenue, monthly trends, growth, customers or freight…" required>
    <button id="send" type="submit">Send</button>
  </form>
</main>
<script src="/static/vendor/chart.umd.min.js"></script>
<script src="/static/charts.js"></script>
<script type="module" src="/chat/app.js"></script>
</body>
</html>
`;

// A module: it calls the API through the typed client's runtime (openapi-fetch, served by
// the service), with the path the document gives.
export const CHAT_PAGE_SCRIPT = `import createClient from '${CLIENT_MODULE_PATH}';
const api = createClient({ baseUrl: location.origin });
const log = document.getElementById('log');
const form = document.getElementById('ask');
const input = document.getElementById('question');
const send = document.getElementById('send');
const history = [];
const examples = document.getElementById('examples');

examples.addEventListener('click', (event) => {
  const question = event.target.closest('button[data-question]');
  if (!question || send.disabled) return;
  input.value = question.dataset.question;
  form.requestSubmit();
});

function add(kind, text, toolCalls) {
  const div = document.createElement('div');
  div.className = 'msg ' + kind;
  div.dataset.role = kind;
  div.textContent = text;
  if (toolCalls && toolCalls.length) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'Tools used: ' + toolCalls.map((c) => c.name).join(', ');
    const pre = document.createElement('pre');
    pre.textContent = JSON.stringify(toolCalls.map((c) => ({ name: c.name, arguments: c.arguments, is_error: c.is_error })), null, 2);
    details.append(summary, pre);
    div.append(details);
  }
  log.append(div);
  if (toolCalls) for (const call of toolCalls) showResult(div, call);
  log.scrollTop = log.scrollHeight;
}

// A tool's rows drawn as the dashboard draws them (charts.js, one copy); rows of other
// reads (customers) as a table. Summaries and errors stay as text.
function showResult(div, call) {
  const rows = call.result && Array.isArray(call.result.data) ? call.result.data : [];
  if (call.is_error || rows.length === 0 || call.name === 'sales_summary') return;
  const box = document.createElement('div');
  box.className = 'result';
  box.dataset.tool = call.name;
  div.insertBefore(box, div.querySelector('details'));
  const draw = window.Charts && window.Charts.views[call.name];
  if (draw && rows.length > 1) return draw(box, rows);
  const columns = Object.keys(rows[0]);
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const column of columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = column.replace(/_/g, ' ');
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const column of columns) {
      const value = row[column] === null ? '' : String(row[column]);
      const cell = tr.insertCell();
      // long ids shortened as in the answer's text, in full on hover
      cell.textContent = value.length > 16 ? value.slice(0, 8) + '…' : value;
      if (value.length > 16) cell.title = value;
    }
  }
  const scroll = document.createElement('div');
  scroll.className = 'scroll';
  scroll.append(table);
  box.append(scroll);
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = input.value.trim();
  if (!message) return;
  examples.hidden = true;
  add('user', message);
  input.value = '';
  send.disabled = true;
  try {
    const { data, error, response } = await api.POST('/api/v1/agent/chat', {
      body: { message, history: history.slice(-20) },
    });
    if (!data) {
      add('error', error?.detail || ('Error ' + response.status));
    } else {
      add('assistant', data.answer, data.tool_calls);
      history.push({ role: 'user', content: message }, { role: 'assistant', content: data.answer });
    }
  } catch (error) {
    add('error', 'The service could not be reached.');
  } finally {
    send.disabled = false;
    input.focus();
  }
});
`;
