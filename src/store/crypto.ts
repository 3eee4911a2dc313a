// Secrets at rest: AES-256-GCM under a keyring, each ciphertext bound to its workspace and column.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EncryptionKey } from '../config.js';
import type { CodedError } from '../errors.js';

/** Where a secret lives. A ciphertext only decrypts in the context it was made for. */
export interface SecretContext {
  /** The workspace (or installation) the secret belongs to. */
  workspace: string;
  /** `table.column`, e.g. `cdn_credentials.api_key`. */
  column: string;
  /**
   * The row, where a workspace holds several secrets in one column (a CDN account's id). Left
   * out, the associated data is exactly what it was before rows were named.
   */
  row?: string;
}

export type SecretErrorCode = 'secret_malformed' | 'secret_key_unknown' | 'secret_rejected';

export class SecretError extends Error implements CodedError {
  override readonly name = 'SecretError';
  constructor(
    readonly code: SecretErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Format: `v1:<keyId>:<nonce>:<ciphertext‖tag>` (base64url). The version and key id travel with
 * the ciphertext so keys can rotate; both are also authenticated, with the context, as GCM's
 * associated data, so none of them can be swapped without decryption failing.
 */
export class Keyring {
  readonly #keys: Map<string, Buffer>;
  readonly primaryId: string;

  constructor(keys: readonly EncryptionKey[]) {
    const primary = keys[0];
    if (!primary) throw new TypeError('Keyring: at least one key is required');
    for (const { id, key } of keys) {
      if (key.length !== 32) throw new TypeError(`Keyring: key ${id} is not 32 bytes`);
      if (id.includes(':')) throw new TypeError(`Keyring: key id ${id} contains ":"`);
    }
    this.#keys = new Map(keys.map(({ id, key }) => [id, key]));
    this.primaryId = primary.id;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  encrypt(plaintext: string, context: SecretContext): string {
    const key = this.#keys.get(this.primaryId) as Buffer;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(associatedData(this.primaryId, context));
    const body = Buffer.concat([
      cipher.update(plaintext, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return [VERSION, this.primaryId, nonce.toString('base64url'), body.toString('base64url')].join(
      ':',
    );
  }

  decrypt(sealed: string, context: SecretContext): string {
    const { keyId, nonce, body } = parse(sealed);
    const key = this.#keys.get(keyId);
    if (!key) {
      throw new SecretError(
        'secret_key_unknown',
        `A secret is encrypted under key "${keyId}", which ENCRYPTION_KEYS does not hold`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAAD(associatedData(keyId, context));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretError(
        'secret_rejected',
        `A secret in ${context.column} failed authentication: it was altered, or belongs to another workspace or column`,
      );
    }
  }
}

function parse(sealed: string): { keyId: string; nonce: Buffer; body: Buffer } {
  const parts = sealed.split(':');
  const [version, keyId, nonceText, bodyText] = parts;
  const nonce = Buffer.from(nonceText ?? '', 'base64url');
  const body = Buffer.from(bodyText ?? '', 'base64url');
  if (
    parts.length !== 4 ||
    version !== VERSION ||
    !keyId ||
    nonce.length !== NONCE_BYTES ||
    body.length < TAG_BYTES
  ) {
    throw new SecretError('secret_malformed', 'A stored secret is not in the v1 format');
  }
  return { keyId, nonce, body };
}

function associatedData(keyId: string, context: SecretContext): Buffer {
  // JSON keeps the fields unambiguous: no separator in a workspace id can shift them.
  const fields = [VERSION, keyId, context.column, context.workspace];
  if (context.row !== undefined) fields.push(context.row);
  return Buffer.from(JSON.stringify(fields));
}

/** A fresh key in ENCRYPTION_KEYS form (`id:base64`). */
export function generateKey(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}
