import { describe, expect, it } from 'vitest';
import { parseEncryptionKeys } from '../../src/config.js';
import { generateKey, Keyring, SecretError } from '../../src/store/crypto.js';
import { testKey } from '../helpers/store.js';

const here = { workspace: 'T0001', column: 'cdn_credentials.api_key' };
const secret = 'sk_live_0123456789abcdef';

function failure(run: () => unknown): SecretError {
  try {
    run();
  } catch (error) {
    if (error instanceof SecretError) return error;
    throw error;
  }
  throw new Error('expected a SecretError');
}

describe('Keyring', () => {
  const keyring = new Keyring([testKey('k1', 1)]);

  it('round-trips, with a fresh nonce each time and the key id in the clear', () => {
    const a = keyring.encrypt(secret, here);
    const b = keyring.encrypt(secret, here);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(a).not.toContain(secret);
    expect(keyring.decrypt(a, here)).toBe(secret);
    expect(keyring.decrypt(keyring.encrypt('', here), here)).toBe('');
    expect(keyring.decrypt(keyring.encrypt('ключ 🔑', here), here)).toBe('ключ 🔑');
  });

  it('rejects a tampered ciphertext', () => {
    const sealed = keyring.encrypt(secret, here);
    const parts = sealed.split(':');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[0] = (body[0] ?? 0) ^ 1;
    const tampered = [...parts.slice(0, 3), body.toString('base64url')].join(':');
    expect(failure(() => keyring.decrypt(tampered, here)).code).toBe('secret_rejected');
  });

  it('rejects a ciphertext copied to another workspace or another column', () => {
    const sealed = keyring.encrypt(secret, here);
    const otherWorkspace = failure(() => keyring.decrypt(sealed, { ...here, workspace: 'T0002' }));
    const otherColumn = failure(() =>
      keyring.decrypt(sealed, { ...here, column: 'slack_installations.installation' }),
    );
    expect([otherWorkspace.code, otherColumn.code]).toEqual(['secret_rejected', 'secret_rejected']);
    expect(otherColumn.message).not.toContain(secret);
  });

  it('names an unknown key id', () => {
    const sealed = new Keyring([testKey('k9', 9)]).encrypt(secret, here);
    const error = failure(() => keyring.decrypt(sealed, here));
    expect(error.code).toBe('secret_key_unknown');
    expect(error.message).toContain('"k9"');
  });

  it('rejects a key id swapped in the header, since it is authenticated too', () => {
    const both = new Keyring([testKey('k2', 1), testKey('k1', 1)]);
    const sealed = both.encrypt(secret, here).replace(/^v1:k2:/, 'v1:k1:');
    expect(failure(() => both.decrypt(sealed, here)).code).toBe('secret_rejected');
  });

  it.each([
    '',
    'plaintext',
    'v2:k1:AAAA:BBBB',
    'v1:k1:short:AAAAAAAAAAAAAAAAAAAAAAAA',
    'v1::x:y',
    'v1:k1:a:b:c',
  ])('calls %j malformed', (sealed) => {
    expect(failure(() => keyring.decrypt(sealed, here)).code).toBe('secret_malformed');
  });

  it('encrypts with the first key and decrypts with any', () => {
    const old = new Keyring([testKey('k1', 1)]).encrypt(secret, here);
    const rotated = new Keyring([testKey('k2', 2), testKey('k1', 1)]);
    expect(rotated.decrypt(old, here)).toBe(secret);
    // Made with k2: a keyring of k2 alone opens it.
    const sealed = rotated.encrypt(secret, here);
    expect(sealed).toMatch(/^v1:k2:/);
    expect(new Keyring([testKey('k2', 2)]).decrypt(sealed, here)).toBe(secret);
  });

  it('generates keys in ENCRYPTION_KEYS form', () => {
    const [key] = parseEncryptionKeys(generateKey('k7'));
    expect(key?.id).toBe('k7');
    expect(key?.key.length).toBe(32);
    expect(generateKey('k7')).not.toBe(generateKey('k7'));
  });
});
