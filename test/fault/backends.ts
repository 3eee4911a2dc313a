// Which database a fault scenario runs on. A scenario runs on both when what it proves rests on
// how the store writes or reads around the crash or stop: a claim or a lease (PostgreSQL's
// replicas skip locked rows; SQLite has one writer), a checkpoint, step or intent written before
// the side effect it guards and read back by the next process, a pause or a release at a stop, the
// pool closed by a stop. It runs on one when what it proves is the bot's behaviour towards Slack or
// the CDN (a bound, a retry, a message), and every store call on its path is one a scenario of the
// same file makes on the other database, or test/store and test/jobs make on both: a second run
// would only start two more bots (a bot's start is about 1.5 s of CPU) to take the same path
// through the same code. Such scenarios are spread over both databases where a file has several.
import { BACKENDS } from '../helpers/store.js';

const find = (backend: 'sqlite' | 'postgres') => {
  const entry = BACKENDS.find((b) => b.backend === backend);
  if (!entry) throw new Error(`no ${backend} backend`);
  return entry;
};

/** SQLite, always there. */
export const SQLITE = find('sqlite');
/** PostgreSQL; `skip` when it does not answer (never under .ci/run). */
export const POSTGRES = find('postgres');
