// How much one CDN operation may take: pages per listing, bytes per response, time per attempt and in all.
export interface CdnLimits {
  /** Pages one listing of every zone may read (GET /zones, 100 zones a page). */
  maxPages: number;
  /**
   * Bytes one response body may have. undici's own `maxResponseSize` cuts a longer body off as it
   * streams, so no more than this is ever held; a declared longer body is not read at all.
   */
  maxResponseBytes: number;
  /**
   * One whole operation, retries and waits included: a request, a listing of every page, a zone
   * lookup, a settings change in both path forms. Each attempt's own deadline still applies.
   */
  operationTimeoutMs: number;
  /** One HTTP attempt (CDN_ATTEMPT_TIMEOUT_MS); an attempt gets less if the operation has less left. */
  attemptTimeoutMs: number;
}

export const DEFAULT_CDN_LIMITS: CdnLimits = {
  // 10,000 zones at 100 a page.
  maxPages: 100,
  // A page of 100 zones is about 15 kB and the longest series the bot asks for (1,500 points)
  // about 150 kB: 8 MiB leaves room fifty times over, and 16 connections' worth is 128 MiB.
  maxResponseBytes: 8 * 1024 * 1024,
  // Longer than one attempt (10 s) plus a retry, short enough that Slack users are not left waiting.
  operationTimeoutMs: 30_000,
  // A CDN that has not answered a purge or a settings change in 10 s is treated as not answering.
  attemptTimeoutMs: 10_000,
};

/** Bytes as a person reads a limit: 8 MiB, 512 KiB, 300 bytes. */
export function formatByteLimit(bytes: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (bytes >= size) {
      const value = bytes / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${bytes} bytes`;
}
