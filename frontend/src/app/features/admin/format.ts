/** An ISO date or seconds since the epoch, in the reader's locale; empty for none. */
export function when(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const d = new Date(typeof value === 'number' ? value * 1000 : value);
  return Number.isNaN(d.getTime()) ? String(value) : d.toLocaleString();
}
