/** The home page: the render form with every option, skin upload, and the recent jobs. */
import { CLIENT_MODULE_PATH } from '@platform/core';
import { defaultExtraRenderOptions } from '@platform/osu';
import { DEFAULT_RENDER_OPTIONS } from '../admission/validate-render-form.js';
import { EXTRA_RENDER_PARAMETERS } from '../jobs/extra-render-parameters.js';
import type { JobRow } from '../jobs/job-store.js';
import { escapeHtml, layout } from './html.js';

const D = DEFAULT_RENDER_OPTIONS;
/** Field, label, and whether it starts checked (the admission defaults). */
const FLAGS: [string, string, boolean][] = [
  ['motion_blur', 'Motion blur', D.motionBlur],
  ['storyboard', 'Storyboard', D.storyboard],
  ['video', 'Background video', D.video],
  ['snaking_in', 'Snaking sliders in', D.snakingIn],
  ['snaking_out', 'Snaking sliders out', D.snakingOut],
  ['hit_error_meter', 'Hit error meter', D.hitErrorMeter],
  ['key_overlay', 'Key overlay', D.keyOverlay],
  ...EXTRA_RENDER_PARAMETERS.filter((p) => p.kind.type === 'bool').map(
    (p): [string, string, boolean] => [p.field, p.label, defaultExtraRenderOptions[p.key] === true],
  ),
];

/** The extra parameters that are numbers: an input each, with its range and default. */
function numberInputs(): string {
  return EXTRA_RENDER_PARAMETERS.map(({ field, key, label, kind }) => {
    const value = defaultExtraRenderOptions[key];
    if (kind.type === 'choice')
      return `<label>${label} <select name="${field}">${kind.choices
        .map((c) => `<option value="${c}"${c === value ? ' selected' : ''}>${c}</option>`)
        .join('')}</select></label>`;
    if (kind.type === 'bool') return '';
    const [min, max, step] =
      kind.type === 'dim' ? [0, 1, 0.05] : [kind.min, kind.max, kind.integer ? 1 : 0.1];
    return `<label>${label} <input type="number" name="${field}" min="${min}" max="${max}" step="${step}" value="${value}"></label>`;
  })
    .filter(Boolean)
    .join(' ');
}

export function renderHomePage(skins: string[], jobs: JobRow[]): string {
  const skinOptions = skins
    .map((s) => `<option value="${escapeHtml(s)}">${escapeHtml(s)}</option>`)
    .join('');
  const flags = FLAGS.map(
    ([name, label, on]) =>
      `<label><input type="checkbox" name="${name}"${on ? ' checked' : ''}> ${label}</label>`,
  ).join('');
  const rows = jobs
    .map(
      (
        j,
      ) => `<tr><td><a href="/view/${j.id}">${escapeHtml(j.map_title ?? j.replay_info.playerName)}</a></td>
<td>${escapeHtml(j.replay_info.playerName)}</td><td>${escapeHtml(j.status)}</td><td>${Number(j.progress).toFixed(0)}%</td>
<td class="muted">${new Date(j.created_at).toISOString().replace('T', ' ').slice(0, 19)}</td></tr>`,
    )
    .join('');
  return layout(
    'osu! replay renderer',
    `<h1>osu! replay renderer</h1>
<form id="render-form">
<fieldset><legend>Replay</legend>
<label>Replay file (.osr) <input type="file" name="replay" accept=".osr" required></label><br>
<label>Skin <select name="skin" id="skin-select">${skinOptions}</select></label>
<label>Resolution <select name="resolution"><option value="1080p">1080p</option><option value="4k">4K</option></select></label>
<label>Background dim <input type="number" name="bg_dim" min="0" max="1" step="0.05" value="${D.bgDim}"></label><br>
${flags}
</fieldset>
<fieldset><legend>Sound, cursor and dims</legend>
${numberInputs()}
</fieldset>
<button type="submit" id="render-submit">Render</button> <span id="render-message" role="status"></span>
</form>
<form id="skin-form"><fieldset><legend>Upload a skin</legend>
<label>Skin archive (.osk) <input type="file" name="skin" accept=".osk" required></label>
<button type="submit">Upload</button> <span id="skin-message" role="status"></span></fieldset></form>
<h2>Recent jobs</h2>
<table id="recent-jobs"><thead><tr><th>Map</th><th>Player</th><th>Status</th><th>Progress</th><th>Submitted (UTC)</th></tr></thead>
<tbody>${rows || '<tr><td colspan="5" class="muted">No jobs yet.</td></tr>'}</tbody></table>
<p class="muted"><a href="/docs">API documentation</a></p>
<script type="module">
import createClient from '${CLIENT_MODULE_PATH}';
// The typed client's runtime (openapi-fetch), called with the paths of the API's document.
const api = createClient({ baseUrl: location.origin });
const flags = ${JSON.stringify(FLAGS.map(([name]) => name))};
document.getElementById('render-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  const fields = new FormData(form);
  for (const name of flags) fields.set(name, form.elements[name].checked ? 'true' : 'false');
  const message = document.getElementById('render-message');
  message.textContent = 'Uploading…';
  message.className = '';
  const { data, error, response } = await api.POST('/v1/render', { body: fields });
  if (response.status === 202) { location.href = '/view/' + data.job_id; return; }
  message.textContent = error?.detail || ('Error ' + response.status);
  message.className = 'error';
});
document.getElementById('skin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const message = document.getElementById('skin-message');
  const { data, error, response } = await api.POST('/v1/skins/upload', {
    body: new FormData(event.target),
  });
  message.textContent = data ? data.message : (error?.detail || ('Error ' + response.status));
  message.className = data ? '' : 'error';
  if (data) {
    const option = document.createElement('option');
    option.value = option.textContent = data.skin_name;
    document.getElementById('skin-select').append(option);
  }
});
</script>`,
  );
}
