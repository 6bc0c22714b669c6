/** Whether `Accept` ranks `text/csv` above JSON (absent or `*\/*` means JSON). */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const quality = (type: string) => {
    let best = -1;
    for (const part of accept.split(',')) {
      const [media, ...options] = part.trim().toLowerCase().split(';');
      if (media !== type) continue;
      const q = options.map((o) => o.trim()).find((o) => o.startsWith('q='));
      best = Math.max(best, q ? Number(q.slice(2)) || 0 : 1);
    }
    return best;
  };
  const csv = quality('text/csv');
  return csv > 0 && csv > quality('application/json');
}
