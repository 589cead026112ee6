export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** One decimal: finer digits are noise on a shared machine. */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}
