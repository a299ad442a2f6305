/** Code owners as Trunk reports them (`@acme/payments`, `@alice`, `alice@example.com`), shared by digests and test feeds. */

/**
 * Whether a test's code owners include `owner`, ignoring case. `@acme/payments`, `@alice` and
 * `alice@example.com` must match a code owner exactly; a bare name (`payments`) also matches the team or
 * user of that name in any organization (`@payments`, `@acme/payments`).
 */
export function ownedBy(codeowners: unknown, owner: string | undefined): boolean {
  if (owner === undefined) return true;
  if (!Array.isArray(codeowners)) return false;
  const want = owner.toLowerCase();
  const bare = !want.startsWith('@') && !want.includes('@');
  return codeowners.some((c) => {
    if (typeof c !== 'string') return false;
    const have = c.toLowerCase();
    return (
      have === want ||
      (bare && have.startsWith('@') && have.slice(have.lastIndexOf('/') + 1).replace(/^@/, '') === want)
    );
  });
}
