// A pattern matching every id the given patterns do not, so a fallback listener can answer what
// no other listener handles (an old button, a hand-made payload) at once, instead of leaving
// Bolt to time out after 3 s and answer 404.

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches an id (the whole of it) that none of `patterns` matches. */
export function unmatched(patterns: ReadonlyArray<string | RegExp>): RegExp {
  const alternatives = patterns.map((pattern) =>
    typeof pattern === 'string' ? escapeRegExp(pattern) : pattern.source.replace(/^\^|\$$/g, ''),
  );
  return new RegExp(`^(?!(?:${alternatives.join('|')})$)`);
}
