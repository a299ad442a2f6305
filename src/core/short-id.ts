import { randomInt } from 'node:crypto';

const ID_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A prefix and five characters without look-alikes (no i, l, o, 0, 1), easy to read and type. */
export function newShortId(prefix: string): string {
  let id = prefix;
  for (let i = 0; i < 5; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}
