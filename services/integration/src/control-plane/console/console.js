// The operator console: browser JavaScript over the control plane's API (and its same-origin
// proxy to the submission service and the adapters' admin APIs), called through the typed
// client's runtime (openapi-fetch, served by the control plane) with the document's paths.
/* global document, location, Node, sessionStorage, window */
import createClient from '/assets/openapi-fetch.js';

const $ = (id) => document.querySelector(`[data-testid="${id}"]`);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children)
    node.append(child instanceof Node ? child : document.createTextNode(String(child ?? '')));
  return node;
};
const client = createClient({ baseUrl: location.origin });
// With API_KEYS set, the control plane asks for a key (401): the operator types it once;
// it stays in this tab's sessionStorage only and goes out as `Authorization: Bearer`.
/**
 * One call of the API: `method` and `path` as the document writes them, `init` as
 * openapi-fetch takes it (`params.path`, `params.query`, `body`). Answers `{ ok, status, body }`,
 * the body being the success or the error answer (`{}` when there is none).
 */
async function api(method, path, init = {}, retried = false) {
  const key = sessionStorage.getItem('apiKey');
  const headers = key ? { authorization: `Bearer ${key}` } : {};
  const { data, error, response } = await client.request(method, path, { ...init, headers });
  if (response.status === 401 && !retried) {
    const entered = window.prompt('API key (operate scope)');
    if (entered) {
      sessionStorage.setItem('apiKey', entered.trim());
      return api(method, path, init, true);
    }
  }
  // A body that is not JSON arrives as its text.
  const answer = response.ok ? data : error;
  const body = typeof answer === 'string' ? { detail: answer } : (answer ?? {});
  return { ok: response.ok, status: response.status, body };
}
const say = (node, result, okText) => {
  node.className = result.ok ? 'ok' : 'error';
  node.textContent = result.ok ? okText : `${result.status}: ${result.body.detail ?? ''}`;
};

let contracts = [];
let adapterTypes = [];
let selected;
let selectedDeadLetter;

// Tabs
for (const button of document.querySelectorAll('nav button')) {
  button.addEventListener('click', () => {
    for (const b of document.querySelectorAll('nav button'))
      b.classList.toggle('active', b === button);
    for (const s of document.querySelectorAll('main section'))
      s.classList.toggle('active', s.id === button.dataset.tab);
    ({
      contracts: loadContracts,
      adapters: loadAdapters,
      records: loadRecords,
      'dead-letters': loadDeadLetters,
    })[button.dataset.tab]();
  });
}

// Contracts
async function loadContracts() {
  contracts = (await api('GET', '/contracts')).body.contracts ?? [];
  adapterTypes = (await api('GET', '/adapter-types')).body.adapterTypes ?? [];
  $('contract-list').replaceChildren(
    ...contracts.map((c) =>
      el(
        'tr',
        {
          class: 'clickable',
          'data-contract': c.contractId,
          onclick: () => selectContract(c.contractId),
        },
        el('td', {}, c.contractId),
        el('td', {}, c.title),
        el('td', {}, c.schemaVersion),
        el('td', {}, c.fields.length),
        el('td', {}, c.recordTypes.map((t) => `${t} (${c.lifecycle[t]})`).join(', ')),
      ),
    ),
  );
  const options = contracts.map((c) => el('option', { value: c.contractId }, c.contractId));
  const current = $('records-contract').value;
  $('records-contract').replaceChildren(...options);
  if (current) $('records-contract').value = current;
  if (selected) await selectContract(selected);
}

async function selectContract(contractId) {
  selected = contractId;
  const contract = contracts.find((c) => c.contractId === contractId);
  if (!contract) return;
  const detail = document.getElementById('contract-detail');
  detail.hidden = false;
  // Busy until its attachments and the attach form are rebuilt: the form is replaced at
  // the end, so what is typed into it before then would be lost.
  detail.setAttribute('aria-busy', 'true');
  try {
    await showContract(contract);
  } finally {
    detail.removeAttribute('aria-busy');
  }
}

async function showContract(contract) {
  const { contractId } = contract;
  $('contract-title').textContent =
    `${contract.title} (${contract.contractId}, version ${contract.schemaVersion})`;
  $('contract-fields').replaceChildren(
    ...contract.fields.map((f) =>
      el(
        'tr',
        {},
        el('td', {}, f.name + (contract.naturalKey.fields.includes(f.name) ? ' 🔑' : '')),
        el('td', {}, f.type),
        el('td', {}, f.required ? 'yes' : 'no'),
        el('td', {}, f.queryable ? 'yes' : ''),
        el(
          'td',
          {},
          [f.values?.join(' | '), f.default !== undefined ? `default ${f.default}` : '']
            .filter(Boolean)
            .join('; '),
        ),
      ),
    ),
  );
  const versions =
    (await api('GET', '/contracts/{contractId}/versions', { params: { path: { contractId } } }))
      .body.versions ?? [];
  $('contract-versions').textContent = versions
    .map((v) => `v${v.schemaVersion} (${v.createdAt})`)
    .join(', ');
  const { schemaVersion, createdAt: _createdAt, updatedAt: _updatedAt, ...definition } = contract;
  $('compat-input').value = JSON.stringify(
    { ...definition, schemaVersion: schemaVersion + 1 },
    null,
    2,
  );
  await loadAttachments();
  $('attach-type').replaceChildren(
    ...adapterTypes.map((t) =>
      el('option', { value: t.type }, `${t.type}${t.live ? '' : ' (not live)'}`),
    ),
  );
  renderConfigForm();
}

async function loadAttachments() {
  const attachments =
    (
      await api('GET', '/contracts/{contractId}/adapters', {
        params: { path: { contractId: selected } },
      })
    ).body.attachments ?? [];
  const statuses = await adapterStatuses([...new Set(attachments.map((a) => a.adapterType))]);
  $('attachment-list').replaceChildren(
    ...attachments.map((a) =>
      el(
        'tr',
        { 'data-attachment': a.attachmentId },
        el('td', {}, a.adapterType),
        el('td', {}, el('code', {}, JSON.stringify(a.config))),
        el('td', {}, a.enabled ? 'enabled' : 'disabled'),
        ...liveCells(statuses.get(a.adapterType), a, 'att'),
        el(
          'td',
          {},
          el(
            'button',
            {
              'data-testid': `toggle-${a.attachmentId}`,
              onclick: async () => {
                await api('PATCH', '/contracts/{contractId}/adapters/{attachmentId}', {
                  params: { path: { contractId: selected, attachmentId: a.attachmentId } },
                  body: { enabled: !a.enabled },
                });
                await loadAttachments();
              },
            },
            a.enabled ? 'Disable' : 'Enable',
          ),
        ),
      ),
    ),
  );
}

// Live status (issue 17): each adapter's admin status, through the control plane's proxy.
/** adapter type → its status body, or null when it could not be asked. */
async function adapterStatuses(types) {
  const known = new Map(adapterTypes.map((t) => [t.type, t]));
  const entries = await Promise.all(
    types.map(async (type) => {
      if (!known.get(type)?.adminUrl) return [type, null];
      const result = await api('GET', '/console/api/adapter-types/{type}/status', {
        params: { path: { type } },
      });
      return [type, result.ok ? result.body : null];
    }),
  );
  return new Map(entries);
}

/** State, lag, written, per second and last error of one attachment, as table cells. */
function liveCells(status, attachment, prefix) {
  const figures = status?.attachments?.find((a) => a.attachmentId === attachment.attachmentId);
  const state = !status
    ? 'unreachable'
    : !attachment.enabled
      ? 'disabled'
      : status.paused
        ? 'paused'
        : !figures
          ? 'not served yet'
          : status.state;
  const id = attachment.attachmentId;
  const error = figures?.lastError;
  return [
    el(
      'td',
      { class: `state-${state.split(' ')[0]}`, 'data-testid': `${prefix}-state-${id}` },
      state,
    ),
    el('td', { 'data-testid': `${prefix}-lag-${id}` }, figures ? figures.lag : ''),
    el('td', { 'data-testid': `${prefix}-written-${id}` }, figures ? figures.written : ''),
    el('td', { 'data-testid': `${prefix}-rate-${id}` }, figures ? figures.writtenPerSecond : ''),
    el(
      'td',
      { class: 'last-error', 'data-testid': `${prefix}-error-${id}`, title: error?.message ?? '' },
      error ? `${error.at.slice(11, 19)} ${error.message.slice(0, 120)}` : '',
    ),
  ];
}

// The config form is generated from the adapter type's published JSON schema.
function renderConfigForm() {
  const type = adapterTypes.find((t) => t.type === $('attach-type').value);
  const form = $('attach-form');
  form.replaceChildren();
  if (!type) return;
  const required = new Set(type.configSchema.required ?? []);
  for (const [name, schema] of Object.entries(type.configSchema.properties ?? {})) {
    let input;
    if (Array.isArray(schema.enum))
      input = el(
        'select',
        { name },
        el('option', { value: '' }, '(default)'),
        ...schema.enum.map((v) => el('option', { value: v }, v)),
      );
    else if (schema.type === 'boolean') input = el('input', { name, type: 'checkbox' });
    else
      input = el('input', {
        name,
        type: schema.type === 'integer' || schema.type === 'number' ? 'number' : 'text',
        size: 60,
        placeholder:
          schema.type === 'array'
            ? 'comma-separated'
            : schema.type === 'object'
              ? 'JSON object, e.g. {}'
              : schema.default !== undefined
                ? `default ${schema.default}`
                : '',
      });
    input.dataset.kind = schema.type ?? 'string';
    input.id = `config-${name}`;
    form.append(
      el(
        'label',
        { for: input.id },
        `${name}${required.has(name) ? ' *' : ''}`,
        el('small', {}, schema.description ?? ''),
      ),
      input,
    );
  }
  showAttachErrors([]);
  showAttachJson();
}
$('attach-type').addEventListener('change', renderConfigForm);

/** What the attach button sends, shown as the form is filled in. */
function attachBody() {
  return { adapterType: $('attach-type').value, config: readConfigForm() };
}
function showAttachJson() {
  $('attach-json').textContent = JSON.stringify(attachBody(), null, 2);
}
$('attach-form').addEventListener('input', showAttachJson);
$('attach-form').addEventListener('submit', (event) => event.preventDefault());

/** The control plane's refusal, inline: each `config.<member>` error marks its input. */
function showAttachErrors(errors) {
  for (const node of $('attach-form').querySelectorAll('[aria-invalid]'))
    node.removeAttribute('aria-invalid');
  for (const error of errors) {
    const member = /^config\.([A-Za-z0-9_]+)/.exec(error.path ?? '')?.[1];
    const input = member && $('attach-form').querySelector(`[name="${member}"]`);
    if (input) input.setAttribute('aria-invalid', 'true');
  }
  $('attach-errors').replaceChildren(
    ...errors.map((e) => el('li', {}, [e.path, e.message].filter(Boolean).join(' '))),
  );
}

function readConfigForm() {
  const config = {};
  for (const input of $('attach-form').querySelectorAll('input, select')) {
    const kind = input.dataset.kind;
    if (kind === 'boolean') {
      if (input.checked) config[input.name] = true;
      continue;
    }
    const value = input.value.trim();
    if (value === '') continue;
    if (kind === 'array')
      config[input.name] = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
    else if (kind === 'integer' || kind === 'number') config[input.name] = Number(value);
    else if (kind === 'object') {
      // Not JSON: sent as typed, so the control plane's schema check names the member.
      try {
        config[input.name] = JSON.parse(value);
      } catch {
        config[input.name] = value;
      }
    } else config[input.name] = value;
  }
  return config;
}
$('attach-submit').addEventListener('click', async () => {
  // The answer of an earlier attach must not stand for this one.
  $('attach-result').className = '';
  $('attach-result').textContent = 'attaching…';
  const result = await api('POST', '/contracts/{contractId}/adapters', {
    params: { path: { contractId: selected } },
    body: attachBody(),
  });
  showAttachErrors(result.ok ? [] : (result.body.errors ?? []));
  await loadAttachments();
  say($('attach-result'), result, 'attached');
});

async function compat(apply) {
  let body;
  try {
    body = JSON.parse($('compat-input').value);
  } catch (error) {
    $('compat-result').textContent = `not JSON: ${error.message}`;
    return;
  }
  const init = { params: { path: { contractId: selected } }, body };
  const result = apply
    ? await api('POST', '/contracts/{contractId}/versions', init)
    : await api('POST', '/contracts/{contractId}/compatibility', init);
  $('compat-result').textContent = JSON.stringify(result.body, null, 2);
  if (apply && result.ok) await loadContracts();
}
$('compat-check').addEventListener('click', () => compat(false));
$('compat-apply').addEventListener('click', () => compat(true));

$('register-submit').addEventListener('click', async () => {
  let body;
  try {
    body = JSON.parse($('register-input').value);
  } catch (error) {
    $('register-result').textContent = `not JSON: ${error.message}`;
    return;
  }
  const result = await api('POST', '/contracts', { body });
  say($('register-result'), result, `registered ${body.contractId}`);
  if (!result.ok && result.body.errors)
    $('register-result').textContent +=
      ' — ' + result.body.errors.map((e) => `${e.path} ${e.message}`).join('; ');
  await loadContracts();
});

// Adapters
async function loadAdapters() {
  adapterTypes = (await api('GET', '/adapter-types')).body.adapterTypes ?? [];
  const rows = await Promise.all(
    adapterTypes.map(async (t) => {
      const status = t.adminUrl
        ? await api('GET', '/console/api/adapter-types/{type}/status', {
            params: { path: { type: t.type } },
          })
        : { ok: false, body: {} };
      const lag = (status.body.assignments ?? []).reduce(
        (sum, a) => sum + Math.max(0, a.endOffset - a.committedOffset),
        0,
      );
      const act = (action) =>
        el(
          'button',
          {
            'data-testid': `${action}-${t.type}`,
            onclick: async () => {
              await api('POST', '/console/api/adapter-types/{type}/{action}', {
                params: { path: { type: t.type, action } },
              });
              await loadAdapters();
            },
          },
          action,
        );
      return el(
        'tr',
        { 'data-adapter': t.type },
        el('td', {}, t.type),
        el('td', {}, t.live ? 'live' : 'not seen'),
        el('td', {}, t.consumerGroup),
        el('td', {}, t.lastSeenAt),
        el(
          'td',
          { 'data-testid': `state-${t.type}` },
          status.ok
            ? status.body.paused
              ? 'paused'
              : (status.body.state ?? 'running')
            : 'unreachable',
        ),
        el('td', { 'data-testid': `lag-${t.type}` }, status.ok ? lag : ''),
        el('td', {}, act('pause'), ' ', act('resume')),
      );
    }),
  );
  $('adapter-list').replaceChildren(...rows);
  await loadAttachmentStatus();
}

async function loadAttachmentStatus() {
  // Per contract (masked configs), not the adapters' feed, which carries their secrets.
  contracts = (await api('GET', '/contracts')).body.contracts ?? [];
  const lists = await Promise.all(
    contracts.map(
      async (c) =>
        (
          await api('GET', '/contracts/{contractId}/adapters', {
            params: { path: { contractId: c.contractId } },
          })
        ).body.attachments ?? [],
    ),
  );
  const attachments = lists.flat();
  const statuses = await adapterStatuses([...new Set(attachments.map((a) => a.adapterType))]);
  $('attachment-status').replaceChildren(
    ...attachments.map((a) =>
      el(
        'tr',
        { 'data-attachment-status': a.attachmentId },
        el('td', {}, a.adapterType),
        el('td', {}, a.contractId),
        el('td', { title: a.attachmentId }, el('code', {}, JSON.stringify(a.config))),
        ...liveCells(statuses.get(a.adapterType), a, 'live'),
      ),
    ),
  );
  $('live-stamp').textContent = `updated ${new Date().toLocaleTimeString()}`;
}

// Updates the status shown while it is on screen: the adapters tab, or a contract's attachments.
const LIVE_INTERVAL_MS = 2000;
let liveBusy = false;
setInterval(async () => {
  if (liveBusy || document.visibilityState === 'hidden') return;
  liveBusy = true;
  try {
    if (document.getElementById('adapters').classList.contains('active')) await loadAdapters();
    else if (
      document.getElementById('contracts').classList.contains('active') &&
      selected &&
      !document.getElementById('contract-detail').hidden
    )
      await loadAttachments();
  } finally {
    liveBusy = false;
  }
}, LIVE_INTERVAL_MS);

// Records
async function loadRecords() {
  if (contracts.length === 0) await loadContracts();
  const contractId = $('records-contract').value;
  if (!contractId) return;
  const contract = contracts.find((c) => c.contractId === contractId);
  const result = await api('GET', '/console/api/contracts/{contractId}/records', {
    params: { path: { contractId }, query: { limit: 200 } },
  });
  const names = contract.fields.map((f) => f.name);
  $('records-head').replaceChildren(
    el(
      'tr',
      {},
      el('th', {}, 'recordId'),
      ...names.map((n) => el('th', {}, n)),
      el('th', {}, 'version'),
    ),
  );
  $('records-list').replaceChildren(
    ...(result.body.records ?? []).map((r) =>
      el(
        'tr',
        { 'data-record': r.naturalKey },
        el('td', {}, r.recordId),
        ...names.map((n) => el('td', {}, r.payload[n] ?? '')),
        el('td', {}, r.schemaVersion),
      ),
    ),
  );
}
$('records-contract').addEventListener('change', loadRecords);
$('records-refresh').addEventListener('click', loadRecords);
$('submit-record').addEventListener('click', async () => {
  let body;
  try {
    body = JSON.parse($('submit-input').value);
  } catch (error) {
    $('submit-result').textContent = `not JSON: ${error.message}`;
    return;
  }
  const result = await api('POST', '/console/api/contracts/{contractId}/records', {
    params: { path: { contractId: $('records-contract').value } },
    body,
  });
  say($('submit-result'), result, `accepted ${result.body.recordId}`);
  if (!result.ok && result.body.errors)
    $('submit-result').textContent +=
      ' — ' + result.body.errors.map((e) => `${e.field} ${e.message}`).join('; ');
  await loadRecords();
});

// Dead letters
function deadLetterFilter() {
  const filter = {};
  if ($('dl-contract').value) filter.contractId = $('dl-contract').value;
  if ($('dl-adapter').value) filter.failedAdapter = $('dl-adapter').value;
  if ($('dl-error').value) filter.errorType = $('dl-error').value;
  if ($('dl-replayed').value) filter.replayed = $('dl-replayed').value === 'true';
  return filter;
}

/** Fills a filter's choices with the values present (and their counts), keeping the choice made. */
async function fillChoices(select, dimension, anyLabel) {
  const groups =
    (await api('GET', '/dead-letters', { params: { query: { groupBy: dimension } } })).body
      .groups ?? [];
  const current = select.value;
  const options = groups
    .filter((g) => g[dimension] !== null)
    .map((g) => el('option', { value: g[dimension] }, `${g[dimension]} (${g.count})`));
  if (current && !groups.some((g) => g[dimension] === current))
    options.push(el('option', { value: current }, `${current} (0)`));
  select.replaceChildren(el('option', { value: '' }, anyLabel), ...options);
  select.value = current;
}

let deadLetterTotal = 0;
async function loadDeadLetters() {
  await Promise.all([
    fillChoices($('dl-contract'), 'contractId', 'any contract'),
    fillChoices($('dl-adapter'), 'failedAdapter', 'any adapter'),
  ]);
  const filter = deadLetterFilter();
  const group = $('dl-group').value;
  if (group) {
    const result = await api('GET', '/dead-letters', {
      params: { query: { ...filter, groupBy: group } },
    });
    $('dl-head').replaceChildren(
      el('tr', {}, el('th', {}, group), el('th', {}, 'count'), el('th', {}, 'latest')),
    );
    $('dl-list').replaceChildren(
      ...(result.body.groups ?? []).map((g) =>
        el(
          'tr',
          {},
          el('td', {}, g[group] ?? '(none)'),
          el('td', {}, g.count),
          el('td', {}, g.latestQuarantinedAt),
        ),
      ),
    );
  }
  const result = await api('GET', '/dead-letters', {
    params: { query: { ...filter, limit: 200 } },
  });
  deadLetterTotal = result.body.total ?? 0;
  const shown = result.body.deadLetters ?? [];
  $('dl-count').textContent =
    `${deadLetterTotal} dead letter${deadLetterTotal === 1 ? '' : 's'} match` +
    (deadLetterTotal > shown.length ? ` (newest ${shown.length} shown)` : '');
  $('dl-replay-all').disabled = deadLetterTotal === 0;
  $('dl-replay-all').textContent =
    `Replay ${Math.min(deadLetterTotal, BULK_LIMIT)} matching` +
    (deadLetterTotal > BULK_LIMIT ? ` (oldest ${BULK_LIMIT} of ${deadLetterTotal})` : '');
  if (group) return;
  $('dl-head').replaceChildren(
    el(
      'tr',
      {},
      ...['quarantined', 'contract', 'error', 'adapter', 'attempts', 'message', 'replayed'].map(
        (h) => el('th', {}, h),
      ),
    ),
  );
  $('dl-list').replaceChildren(
    ...shown.map((d) =>
      el(
        'tr',
        { class: 'clickable', 'data-dead-letter': d.id, onclick: () => showDeadLetter(d) },
        el('td', {}, d.quarantinedAt),
        el('td', {}, d.contractId ?? ''),
        el('td', {}, d.errorType),
        el('td', {}, d.failedAdapter),
        el('td', {}, d.attemptCount),
        el('td', {}, d.errorMessage),
        el('td', {}, d.replayed ? `yes (${d.replayedAt})` : 'no'),
      ),
    ),
  );
}
for (const id of ['dl-contract', 'dl-adapter', 'dl-error', 'dl-replayed', 'dl-group'])
  $(id).addEventListener('change', loadDeadLetters);

// Bulk replay: the filter shown, oldest first, as many as the control plane takes at once.
const BULK_LIMIT = 1000;
$('dl-replay-all').addEventListener('click', async () => {
  const count = Math.min(deadLetterTotal, BULK_LIMIT);
  if (!window.confirm(`Replay ${count} dead letter${count === 1 ? '' : 's'}?`)) return;
  const result = await api('POST', '/dead-letters/replay', {
    body: { ...deadLetterFilter(), limit: BULK_LIMIT },
  });
  const node = $('dl-bulk-result');
  if (!result.ok) say(node, result, '');
  else {
    const { replayed, failed, notAttempted } = result.body;
    node.className = failed.length || notAttempted.length ? 'error' : 'ok';
    node.textContent =
      `replayed ${replayed.length}` +
      (failed.length
        ? `; not replayed ${failed.length}: ` + [...new Set(failed.map((f) => f.detail))].join('; ')
        : '') +
      (notAttempted.length ? `; ${notAttempted.length} left for later` : '');
  }
  await loadDeadLetters();
});
function showDeadLetter(deadLetter) {
  selectedDeadLetter = deadLetter;
  document.getElementById('dl-detail').hidden = false;
  $('dl-id').textContent = deadLetter.id;
  $('dl-original').textContent =
    typeof deadLetter.originalPayload === 'string'
      ? deadLetter.originalPayload
      : JSON.stringify(deadLetter.originalPayload, null, 2);
  $('dl-replay-result').textContent = '';
}
$('dl-refresh').addEventListener('click', loadDeadLetters);
$('dl-replay').addEventListener('click', async () => {
  const result = await api('POST', '/dead-letters/{id}/replay', {
    params: { path: { id: selectedDeadLetter.id } },
  });
  say($('dl-replay-result'), result, `replayed to ${result.body.published?.topic}`);
  await loadDeadLetters();
});

loadContracts();

// The contract form (issue 17): for operators who do not write JSON by hand. It builds
// the definition the JSON box would take, shows it as it is typed, and checks what can
// be checked here (the control plane checks the rest and its errors are shown the same way).
const FIELD_TYPES = ['string', 'email', 'date', 'enum'];
const CONTRACT_ID = /^[a-z][a-z0-9_-]{0,62}$/; // as validate-definition.ts
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9]{0,62}$/; // as validate-definition.ts

function addFieldRow(field = { name: '', type: 'string', required: true }) {
  const row = el(
    'tr',
    { 'data-testid': 'cf-field' },
    el(
      'td',
      {},
      el('input', { name: 'name', value: field.name, 'aria-label': 'field name', size: 14 }),
    ),
    el(
      'td',
      {},
      el(
        'select',
        { name: 'type', 'aria-label': 'field type' },
        ...FIELD_TYPES.map((t) =>
          el('option', { value: t, ...(t === field.type ? { selected: '' } : {}) }, t),
        ),
      ),
    ),
    el(
      'td',
      {},
      el('input', {
        name: 'required',
        type: 'checkbox',
        'aria-label': 'required',
        ...(field.required ? { checked: '' } : {}),
      }),
    ),
    el(
      'td',
      {},
      el('input', { name: 'key', type: 'checkbox', 'aria-label': 'part of the natural key' }),
    ),
    el(
      'td',
      {},
      el('input', {
        name: 'values',
        'aria-label': 'enum values, comma-separated',
        placeholder: 'A, B, C',
        size: 16,
      }),
    ),
    el(
      'td',
      {},
      el(
        'button',
        {
          type: 'button',
          onclick: () => {
            row.remove();
            updateContractForm();
          },
        },
        'Remove',
      ),
    ),
  );
  $('cf-fields').append(row);
  updateContractForm();
}

/** The definition the form describes, and what is wrong with it: [{ input, message }]. */
function readContractForm() {
  const form = $('contract-form');
  const errors = [];
  const value = (name) => form.elements[name].value.trim();
  const contractId = value('contractId');
  if (!CONTRACT_ID.test(contractId))
    errors.push({
      input: form.elements.contractId,
      message:
        'Contract id: a lower-case letter, then lower-case letters, digits, _ or - (at most 63)',
    });
  const title = value('title');
  if (!title) errors.push({ input: form.elements.title, message: 'Title is required' });
  const fields = [];
  const key = [];
  const seen = new Set();
  for (const row of $('cf-fields').querySelectorAll('tr')) {
    const input = (name) => row.querySelector(`[name="${name}"]`);
    const name = input('name').value.trim();
    if (!FIELD_NAME.test(name))
      errors.push({
        input: input('name'),
        message: `Field name "${name}": letters and digits, starting with a letter (camelCase)`,
      });
    else if (seen.has(name))
      errors.push({ input: input('name'), message: `Field name "${name}" is used twice` });
    seen.add(name);
    const field = { name, type: input('type').value, required: input('required').checked };
    if (field.type === 'enum') {
      field.values = input('values')
        .value.split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      if (field.values.length === 0)
        errors.push({
          input: input('values'),
          message: `Field "${name}": an enum needs its values`,
        });
    }
    if (input('key').checked) {
      key.push(name);
      if (!field.required)
        errors.push({
          input: input('required'),
          message: `Field "${name}" is in the natural key, so it must be required`,
        });
    }
    fields.push(field);
  }
  if (fields.length === 0)
    errors.push({ input: $('cf-add-field'), message: 'Add at least one field' });
  else if (key.length === 0)
    errors.push({ input: $('cf-fields'), message: 'Tick the field(s) of the natural key' });
  const recordTypes = [];
  const lifecycle = {};
  for (const cls of ['create', 'update', 'tombstone']) {
    const type = value(cls);
    if (!type) continue;
    if (lifecycle[type])
      errors.push({ input: form.elements[cls], message: `Record type "${type}" is named twice` });
    recordTypes.push(type);
    lifecycle[type] = cls;
  }
  if (!value('create'))
    errors.push({ input: form.elements.create, message: 'A create record type is required' });
  const definition = {
    contractId,
    title,
    naturalKey: { strategy: 'field', fields: key },
    recordTypes,
    lifecycle,
    fields,
  };
  return { definition, errors };
}

function showContractErrors(messages) {
  $('cf-errors').replaceChildren(...messages.map((m) => el('li', {}, m)));
}

function updateContractForm() {
  const { definition, errors } = readContractForm();
  $('cf-json').textContent = JSON.stringify(definition, null, 2);
  for (const node of $('contract-form').querySelectorAll('[aria-invalid]'))
    node.removeAttribute('aria-invalid');
  for (const { input } of errors) input.setAttribute('aria-invalid', 'true');
  showContractErrors(errors.map((e) => e.message));
  return { definition, errors };
}

$('contract-form').addEventListener('input', updateContractForm);
$('cf-add-field').addEventListener('click', () =>
  addFieldRow({ name: '', type: 'string', required: false }),
);
$('contract-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const { definition, errors } = updateContractForm();
  $('cf-result').textContent = '';
  if (errors.length) {
    errors[0].input.focus();
    return;
  }
  const result = await api('POST', '/contracts', { body: definition });
  say($('cf-result'), result, `registered ${definition.contractId}`);
  if (!result.ok)
    showContractErrors(
      (result.body.errors ?? [])
        .map((e) => `${e.path} ${e.message}`)
        .concat(result.body.errors ? [] : [result.body.detail ?? '']),
    );
  await loadContracts();
});
addFieldRow({ name: '', type: 'string', required: true });
