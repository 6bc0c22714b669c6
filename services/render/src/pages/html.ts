/** HTML helpers for the pages: escaping, JSON safe inside <script>, and the shared layout. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** JSON for an inline script: `<`, `>`, `&` and line separators escaped. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');
}

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;background:#14121a;color:#eee}
a{color:#ff8ac2}h1,h2{font-weight:600}fieldset{border:1px solid #444;border-radius:8px;margin:1rem 0;padding:1rem}
label{display:inline-block;margin:.3rem 1rem .3rem 0}input,select,button{font:inherit}
button{background:#ff66aa;border:0;border-radius:6px;padding:.5rem 1.2rem;color:#fff;cursor:pointer}
table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;border-bottom:1px solid #333;text-align:left}
progress{width:100%;height:1.2rem}.error{color:#ff6b6b}.muted{color:#999}video{width:100%;background:#000;border-radius:8px}
`;

export function layout(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>${head}<style>${STYLE}</style></head>
<body>${body}</body></html>`;
}
