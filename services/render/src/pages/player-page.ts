/**
 * The player page of one job: live status, progress, queue position and ETA (the job's
 * event stream; polling the v1 job where EventSource is missing or fails), the video
 * when done, and OpenGraph video tags so a shared link previews as a playable video.
 */
import { CLIENT_MODULE_PATH } from '@platform/core';
import type { JobRow } from '../jobs/job-store.js';
import { toV1Job } from '../jobs/job-view.js';
import { escapeHtml, layout, scriptJson } from './html.js';

export function renderPlayerPage(job: JobRow, baseUrl: string): string {
  const view = toV1Job(job);
  const title = job.map_title ?? `Replay by ${job.replay_info.playerName}`;
  const videoUrl = `${baseUrl}/v1/artifacts/videos/${job.id}.mp4`;
  const size = job.options.resolution === '4k' ? { w: 3840, h: 2160 } : { w: 1920, h: 1080 };
  const description = `${job.replay_info.playerName} · ${job.replay_info.mods} · ${job.replay_info.accuracy}% · ${job.replay_info.maxCombo}x`;
  const og = [
    ['og:type', 'video.other'],
    ['og:title', title],
    ['og:description', description],
    ['og:url', `${baseUrl}/view/${job.id}`],
    ['og:image', `${baseUrl}/v1/artifacts/thumbnails/${job.id}.jpg`],
    ['og:video', videoUrl],
    ['og:video:url', videoUrl],
    ['og:video:secure_url', videoUrl],
    ['og:video:type', 'video/mp4'],
    ['og:video:width', String(size.w)],
    ['og:video:height', String(size.h)],
    ['twitter:card', 'player'],
  ]
    .map(([property, content]) => `<meta property="${property}" content="${escapeHtml(content)}">`)
    .join('\n');
  return layout(
    title,
    `<p><a href="/">← Home</a></p>
<h1 id="title">${escapeHtml(title)}</h1>
<p class="muted">${escapeHtml(description)} · skin ${escapeHtml(job.skin)}</p>
<p>Status: <strong id="status">${escapeHtml(job.status)}</strong> <span id="percent">${Number(job.progress).toFixed(1)}%</span> <span id="eta" class="muted"></span></p>
<progress id="progress" max="100" value="${Number(job.progress)}"></progress>
<p id="error" class="error">${escapeHtml(job.error ?? '')}</p>
<div id="player"></div>
<p id="links" class="muted"></p>
<script type="module">
import createClient from '${CLIENT_MODULE_PATH}';
// The typed client's runtime (openapi-fetch), called with the paths of the API's document;
// the live updates are the job's event stream (EventSource, which a fetch client is not).
const api = createClient({ baseUrl: location.origin });
const initial = ${scriptJson(view)};
const $ = (id) => document.getElementById(id);
function duration(seconds) {
  const s = Math.max(1, Math.round(seconds));
  if (s < 60) return s + ' s';
  const m = Math.floor(s / 60);
  return m < 60 ? m + ' min ' + (s % 60) + ' s' : Math.floor(m / 60) + ' h ' + (m % 60) + ' min';
}
function link(href, text, download) {
  const a = document.createElement('a');
  a.href = href;
  a.textContent = text;
  if (download) a.download = '';
  return a;
}
function show(job) {
  $('status').textContent = job.status;
  $('percent').textContent = Number(job.progress).toFixed(1) + '%';
  $('progress').value = job.progress;
  if (job.map_title) $('title').textContent = job.map_title;
  $('error').textContent = job.error || '';
  const waiting = [];
  if (job.queue_position) waiting.push('#' + job.queue_position + ' in the queue');
  if (job.eta_seconds != null) waiting.push('about ' + duration(job.eta_seconds) + ' left');
  $('eta').textContent = waiting.join(' · ');
  if (job.status === 'completed' && !document.querySelector('video')) {
    const video = document.createElement('video');
    video.id = 'video';
    video.controls = true;
    video.preload = 'auto';
    video.poster = job.links.thumbnail;
    video.src = job.links.video;
    $('player').append(video);
    // What a finished job offers: the video, its thumbnail and the render log (each when kept).
    const offers = [
      job.links.video && link(job.links.video, 'Download video', true),
      job.links.thumbnail && link(job.links.thumbnail, 'Thumbnail'),
      job.links.log && link(job.links.log, 'Render log'),
    ].filter(Boolean);
    $('links').replaceChildren(...offers.flatMap((a, i) => (i ? [' · ', a] : [a])));
    if (job.links.thumbnail) {
      const thumb = document.createElement('img');
      thumb.src = job.links.thumbnail;
      thumb.alt = 'Thumbnail of the video';
      thumb.width = 240;
      thumb.id = 'thumbnail';
      $('links').append(document.createElement('br'), thumb);
    }
  }
  return job.status === 'completed' || job.status === 'failed';
}
async function poll() {
  try {
    const { data, error, response } = await api.GET('/v1/jobs/{job_id}', {
      params: { path: { job_id: initial.job_id } },
      cache: 'no-store',
    });
    if (response.status === 404 || response.status === 410) return gone(error.detail);
    if (data && show(data)) return;
  } catch {}
  setTimeout(poll, 1000);
}
function gone(detail) {
  $('error').textContent = detail;
  $('eta').textContent = '';
}
function live() {
  const source = new EventSource('/v1/jobs/' + initial.job_id + '/events');
  source.addEventListener('job', (e) => { if (show(JSON.parse(e.data))) source.close(); });
  source.addEventListener('gone', (e) => { source.close(); gone(JSON.parse(e.data).detail); });
  source.onerror = () => { if (source.readyState === EventSource.CLOSED) setTimeout(poll, 1000); };
}
if (!show(initial)) {
  if (window.EventSource) live();
  else setTimeout(poll, 1000);
}
</script>`,
    og,
  );
}
