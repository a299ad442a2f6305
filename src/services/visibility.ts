/**
 * What a person can see (DESIGN, "Rules the contract promises"): every list and surface shows a person only
 * the digests, feeds, windows and queue sources of channels they can see — a public channel to the
 * workspace's own people, otherwise only its members (a guest sees their own channels). Operators get
 * nothing extra in a list. The rule itself is the actor's `canSee`; this applies it to a list.
 */
import type { Actor } from './actor.ts';

/** The items whose channel the actor can see, in their order (each channel asked once: the actor remembers). */
export async function visibleTo<T>(actor: Actor, items: T[], channelOf: (item: T) => string): Promise<T[]> {
  const shown = await Promise.all(items.map((item) => actor.canSee(channelOf(item))));
  return items.filter((_, i) => shown[i]);
}
