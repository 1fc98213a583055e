/**
 * The small HTML pages of the ack-link listener (contract §18.6): the confirm form a GET shows and the
 * short answers after it. No script, every value escaped, nothing loaded from elsewhere.
 */

/** Headers every answer carries: no framing, no sniffing, no caching, and the token never leaks as a Referer. */
export const ACK_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function page(heading: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<meta name="robots" content="noindex"><title>${escapeHtml(heading)} · svc</title>`
    + '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.5rem 1.25rem}</style>'
    + `</head><body><h1>${escapeHtml(heading)}</h1>${body}</body></html>\n`;
}

/** What a GET shows: the page and one button; only the POST of this form acts (link scanners only GET). */
export function confirmPage(action: 'ack' | 'resolve', person: string, pageId: string, title: string): string {
  const verb = action === 'ack' ? 'Acknowledge' : 'Resolve';
  return page(`${verb} page ${pageId}?`, `<p>${escapeHtml(title)}</p><p>As ${escapeHtml(person)}.</p>`
    + `<form method="post"><button type="submit">${verb}</button></form>`);
}

/** An answer after the POST, or a refusal: a heading and one sentence. */
export function messagePage(heading: string, sentence: string): string {
  return page(heading, `<p>${escapeHtml(sentence)}</p>`);
}
