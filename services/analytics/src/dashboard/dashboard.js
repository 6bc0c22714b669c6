// The dashboard: reads the service's own REST API through the typed client's runtime
// (openapi-fetch, served by the service; the paths are the document's) and draws it with
// the shared chart helpers (charts.js). Browser JavaScript, no build step.
/* global document, window, location */
import createClient from '/assets/openapi-fetch.js';

const { Charts } = window;
const { format } = Charts;
const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 25;
const FREIGHT_SHOWN = 15;
const api = createClient({ baseUrl: location.origin, headers: { accept: 'application/json' } });

/** A read's parameters, without the empty ones (an unset filter is left out). */
const query = (params) => ({
  params: {
    query: Object.fromEntries(
      Object.entries(params).filter(([, v]) => v !== '' && v !== undefined),
    ),
  },
});

/** The body of a successful read; an error answer throws its `detail`. */
async function read(request) {
  const { data, error, response } = await request;
  if (error !== undefined || data === undefined)
    throw new Error(error?.detail || response.url + ' answered ' + response.status);
  return data;
}

function showError(error) {
  $('error').hidden = false;
  $('error').textContent = 'Could not load: ' + error.message;
}

function showAsOf(meta) {
  const at = new Date(meta.data_as_of);
  const time = $('as-of');
  time.textContent = 'Data as of ' + at.toLocaleString() + ' (build ' + meta.build_id + ')';
  time.title = meta.data_as_of;
}

async function kpis() {
  const { data, meta } = await read(api.GET('/api/v1/sales/kpis'));
  showAsOf(meta);
  const k = data[0] || {};
  const tiles = [
    ['Revenue', format.money(k.total_lifetime_revenue)],
    ['Orders', format.number(k.total_lifetime_orders)],
    ['Customers', format.number(k.total_unique_customers)],
    [
      'Average order',
      k.average_order_value === null ? 'n/a' : format.money2(k.average_order_value),
    ],
  ];
  $('kpis').replaceChildren(
    ...tiles.map(([label, value]) => {
      const tile = document.createElement('div');
      tile.className = 'tile';
      tile.dataset.testid = 'kpi';
      const l = document.createElement('div');
      l.className = 'label';
      l.textContent = label;
      const v = document.createElement('div');
      v.className = 'value';
      v.textContent = value;
      tile.append(l, v);
      return tile;
    }),
  );
}

async function trend() {
  const { data } = await read(api.GET('/api/v1/sales/monthly-trend', query({ limit: 1000 })));
  Charts.views.monthly_trends($('trend'), data);
}

async function yoy() {
  const { data } = await read(api.GET('/api/v1/sales/yoy'));
  Charts.views.yoy_growth($('yoy'), data);
}

async function freight() {
  const { data, meta } = await read(
    api.GET('/api/v1/analytics/categories/freight', query({ limit: FREIGHT_SHOWN })),
  );
  $('freight-note').textContent =
    'The ' +
    data.length +
    ' of ' +
    meta.total +
    ' categories with the highest burden; above ' +
    Charts.FREIGHT_ALERT +
    ' % (orange) is a candidate for a shipping or pricing change.';
  Charts.views.category_analysis($('freight'), data);
}

// The LTV ranking: paged and sorted by the API (`sort`, `limit`, `offset`, `decile`).
const ltv = { sort: 'ltv_desc', offset: 0, decile: '', total: 0 };

async function ltvPage() {
  const { data, meta } = await read(
    api.GET(
      '/api/v1/analytics/customer-ltv',
      query({ sort: ltv.sort, limit: PAGE_SIZE, offset: ltv.offset, decile: ltv.decile }),
    ),
  );
  ltv.total = meta.total;
  $('ltv-rows').replaceChildren(
    ...data.map((r) => {
      const row = document.createElement('tr');
      for (const value of [
        r.ltv_rank,
        r.customer_sk,
        format.number(r.total_orders),
        format.money2(r.lifetime_value),
        r.ltv_decile,
      ]) {
        row.insertCell().textContent = String(value);
      }
      return row;
    }),
  );
  const first = data.length ? ltv.offset + 1 : 0;
  $('ltv-range').textContent =
    'Customers ' +
    format.number(first) +
    '–' +
    format.number(ltv.offset + data.length) +
    ' of ' +
    format.number(meta.total);
  $('prev').disabled = ltv.offset === 0;
  $('next').disabled = ltv.offset + data.length >= meta.total;
  const ltvSort =
    ltv.sort === 'ltv_desc' ? 'descending' : ltv.sort === 'ltv_asc' ? 'ascending' : 'none';
  $('sort-ltv-th').setAttribute('aria-sort', ltvSort);
  $('sort-ltv').textContent =
    'Lifetime value' + (ltvSort === 'descending' ? ' ↓' : ltvSort === 'ascending' ? ' ↑' : '');
  $('sort-orders-th').setAttribute('aria-sort', ltv.sort === 'orders_desc' ? 'descending' : 'none');
  $('sort-orders').textContent = 'Orders' + (ltv.sort === 'orders_desc' ? ' ↓' : '');
}

function reloadLtv(change) {
  Object.assign(ltv, change);
  ltvPage().catch(showError);
}

$('prev').addEventListener('click', () =>
  reloadLtv({ offset: Math.max(0, ltv.offset - PAGE_SIZE) }),
);
$('next').addEventListener('click', () => reloadLtv({ offset: ltv.offset + PAGE_SIZE }));
$('decile').addEventListener('change', (e) => reloadLtv({ decile: e.target.value, offset: 0 }));
$('sort-ltv').addEventListener('click', () =>
  reloadLtv({ sort: ltv.sort === 'ltv_desc' ? 'ltv_asc' : 'ltv_desc', offset: 0 }),
);
$('sort-orders').addEventListener('click', () => reloadLtv({ sort: 'orders_desc', offset: 0 }));

Promise.all([kpis(), trend(), yoy(), freight(), ltvPage()])
  .then(() => document.body.setAttribute('data-ready', 'true'))
  .catch(showError);
