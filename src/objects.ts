// Helpers for optional fields under exactOptionalPropertyTypes, where `key: undefined` is not allowed.

/** `{ [key]: value }`, or `{}` when the value is undefined: spread it into an object literal. */
export function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
