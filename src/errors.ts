// The shape every project error shares, and the errors the bot's services raise for users.

export interface CodedError extends Error {
  code: string;
}

export type AppErrorCode =
  /** The workspace has no CDN API key yet. */
  | 'no_api_key'
  /** The user lacks the role the action needs. */
  | 'not_allowed'
  /** No zone has that name or id. */
  | 'zone_not_found'
  /** The user's input was refused before any API call. */
  | 'invalid_input'
  /** The user made more changes in a minute than the flood limit allows. */
  | 'too_many_changes';

/** A failure whose message is written for the user who caused it. */
export class AppError extends Error implements CodedError {
  override readonly name = 'AppError';
  constructor(
    readonly code: AppErrorCode,
    message: string,
  ) {
    super(message);
  }
}
