import { describe, expect, it } from 'vitest';
import { checkHostname } from '../../src/cdn/hostname.js';

describe('checkHostname', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Shop.Example.COM. ', 'shop.example.com'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['a-b.c-d.example', 'a-b.c-d.example'],
    ['ｅｘａｍｐｌｅ.com', 'example.com'],
  ])('accepts %j as %s', (input, ascii) => {
    expect(checkHostname(input)).toEqual({ ok: true, ascii });
  });

  it.each([
    ['', 'empty'],
    ['https://example.com', 'without http'],
    ['example.com/path', 'no path'],
    ['example.com:8080', 'no path, port'],
    ['user@example.com', 'credentials'],
    ['localhost', 'at least two labels'],
    ['-bad.example.com', 'hyphen'],
    ['a..b.com', '1–63'],
    ['exa mple.com', 'spaces'],
    ['%41.com', 'no path'],
    ['a\\b.com', 'no path'],
    ['[::1]', 'no path'],
    ['a_b.com', '1–63'],
    ['xn--.com', 'not a valid domain'],
    [`${'a'.repeat(64)}.com`, '1–63'],
    ['10.0.0.1', 'IP address'],
    [`${'abcdefghi.'.repeat(26)}com`, '253'],
  ])('refuses %j saying why', (input, reason) => {
    const check = checkHostname(input);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toContain(reason);
  });
});
