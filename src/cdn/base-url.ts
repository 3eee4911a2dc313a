// What a CDN API base URL must look like: http(s), ending with the version prefix /v1.

export type BaseUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export function checkBaseUrl(input: string): BaseUrlCheck {
  const url = URL.parse(input.trim());
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return { ok: false, reason: 'must be an http(s) URL including the /v1 prefix' };
  }
  if (!/\/v1\/?$/.test(url.pathname)) {
    return {
      ok: false,
      reason: 'must end with the API version prefix /v1, e.g. https://api.cdn.example/v1',
    };
  }
  if (url.username || url.password || url.search || url.hash) {
    return { ok: false, reason: 'must not carry credentials, a query or a fragment' };
  }
  return { ok: true, url: url.toString().replace(/\/+$/, '') };
}
