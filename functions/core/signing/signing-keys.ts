import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { JWK } from 'jose';
import type { App, StoredSigningKey } from '#data/model/app';
import { iso } from '#shared/clock';
import type { Deps } from '../deps';
import type { KeyVault } from '../key-vault';
import type { Signer } from '../signer-cache';
import { loadJose } from './jose';
import * as apps from '#data/app.repo';

/*
 * Applications' Ed25519 signing keys (docs/client-api.md, "Signed answers and offline tokens"): made with the
 * application, or on first need for applications made before; `key_id` is the
 * RFC 7638 thumbprint of the public JWK. The private key leaves this module
 * only as a KeyObject to sign with, or as the vault's ciphertext.
 */
type KeyDeps = Pick<Deps, 'clock' | 'table' | 'signers'> & { keyVault: KeyVault | undefined };

function vaultOf(deps: { keyVault: KeyVault | undefined }): KeyVault {
  if (!deps.keyVault) throw new Error('no key vault is configured for signing keys');
  return deps.keyVault;
}

const rawPublicKey = (publicKey: KeyObject): string => publicKey.export({ format: 'jwk' }).x as string;

/** A fresh key pair: what the table stores, and the private key to sign with at once. */
export async function newSigningKey(deps: Pick<KeyDeps, 'clock' | 'keyVault'>, appId: string): Promise<{ stored: StoredSigningKey; signer: Signer }> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = rawPublicKey(publicKey);
  const { calculateJwkThumbprint } = await loadJose();
  const keyId = await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x });
  const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
  const stored: StoredSigningKey = {
    key_id: keyId,
    public_key: x,
    private_key_ciphertext: await vaultOf(deps).encrypt(appId, pkcs8),
    created_at: iso(deps.clock.now()),
  };
  return { stored, signer: { appId, keyId, privateKey } };
}

async function decryptSigner(deps: KeyDeps, appId: string, stored: StoredSigningKey): Promise<Signer> {
  const pkcs8 = await vaultOf(deps).decrypt(appId, stored.private_key_ciphertext);
  return { appId, keyId: stored.key_id, privateKey: createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' }) };
}

/** Stores a first key; of racing writers (containers, the CLI) the key stored first is everyone's. */
async function storeFirstKey(deps: KeyDeps, appId: string, key: StoredSigningKey): Promise<StoredSigningKey> {
  const stored = await apps.setSigningKeyIfAbsent(deps.table, appId, key);
  if (!stored) throw new Error(`application ${appId} disappeared while its signing key was made`);
  return stored;
}

/** An application made before signing existed gets its key now. */
async function firstSigner(deps: KeyDeps, appId: string): Promise<Signer> {
  const made = await newSigningKey(deps, appId);
  const stored = await storeFirstKey(deps, appId, made.stored);
  return stored.key_id === made.stored.key_id ? made.signer : decryptSigner(deps, appId, stored);
}

/**
 * The signer of the application as read. An item without a key may be a
 * cached copy older than the key this container already holds: that key is
 * used. A failed decryption is not cached, so the next request tries again.
 */
export function signerOf(deps: KeyDeps, app: App): Promise<Signer> {
  const cached = deps.signers.get(app.app_id);
  const wantedKeyId = app.signing_key?.key_id;
  if (cached && wantedKeyId === undefined) return cached;
  if (cached) {
    const current = cached.then((signer) => (signer.keyId === wantedKeyId ? signer : undefined));
    return current.then((signer) => signer ?? replaceSigner(deps, app));
  }
  return replaceSigner(deps, app);
}

function replaceSigner(deps: KeyDeps, app: App): Promise<Signer> {
  const signer = app.signing_key ? decryptSigner(deps, app.app_id, app.signing_key) : firstSigner(deps, app.app_id);
  deps.signers.set(app.app_id, signer);
  signer.catch(() => {
    if (deps.signers.get(app.app_id) === signer) deps.signers.delete(app.app_id);
  });
  return signer;
}

export interface PublicSigningKey {
  key_id: string;
  algorithm: 'ed25519';
  public_key: string;
  public_key_pem: string;
  jwk: JWK & { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
  created_at: string;
}

/** What `/app/signing-key` and the CLI show: the public half only. */
export function publicSigningKey(stored: StoredSigningKey): PublicSigningKey {
  const jwk = { kty: 'OKP', crv: 'Ed25519', x: stored.public_key } as const;
  const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ format: 'pem', type: 'spki' }) as string;
  return {
    key_id: stored.key_id,
    algorithm: 'ed25519',
    public_key: stored.public_key,
    public_key_pem: pem,
    jwk: { ...jwk, kid: stored.key_id, alg: 'EdDSA', use: 'sig' },
    created_at: stored.created_at,
  };
}

/** The application's current key, made now if it has none yet. */
export async function currentSigningKey(deps: KeyDeps, app: App): Promise<StoredSigningKey> {
  if (app.signing_key) return app.signing_key;
  return storeFirstKey(deps, app.app_id, (await newSigningKey(deps, app.app_id)).stored);
}

/** Rotation: a new key pair replaces the current one; containers switch when they next read the application. */
export async function rotateSigningKey(deps: KeyDeps, appId: string): Promise<StoredSigningKey | undefined> {
  const made = await newSigningKey(deps, appId);
  return (await apps.replaceSigningKey(deps.table, appId, made.stored)) ? made.stored : undefined;
}
