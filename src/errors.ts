// The shape every project error shares: a stable machine code beside the human message.

export interface CodedError extends Error {
  code: string;
}
