/**
 * Ed25519 keys from PEM text (the checkpoint key, contract §20.2): the configuration checks the
 * private key when it loads, the daemon signs with it, `svc audit --verify` reads the public one.
 * Errors say what is wrong with the key, never its text.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

export function ed25519PrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('is not a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

/** A public key from PEM; a private key's PEM gives its public half. */
export function ed25519PublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new Error('is not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}
