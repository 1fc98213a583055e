/** A duration as a person reads it, for `svc report` and the console alike. */

/** Seconds as 45s, 12m 5s, 2h 10m, 3d 4h (the two largest units; under a second, tenths); null as `-`. */
export function humanDuration(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 1) return `${Math.round(seconds * 10) / 10}s`;
  const s = Math.round(seconds);
  const [d, h, m, sec] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60), s % 60];
  const pairs: Array<[number, string]> = d > 0 ? [[d, 'd'], [h, 'h']] : h > 0 ? [[h, 'h'], [m, 'm']] : m > 0 ? [[m, 'm'], [sec, 's']] : [[sec, 's']];
  return pairs.filter(([v], i) => i === 0 || v > 0).map(([v, u]) => `${v}${u}`).join(' ');
}
