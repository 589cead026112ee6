// Apart from build.ts, which imports esbuild: the construct package serves the dashboard built ahead and needs only this.
/**
 * The Content-Security-Policy of the dashboard: scripts and styles from its own
 * origin only (no inline script), API calls to `apiOrigin`, never framed.
 */
export function dashboardCsp(apiOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src 'self' ${apiOrigin}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
