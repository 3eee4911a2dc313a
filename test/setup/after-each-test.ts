// Setup file (vitest.config.ts): runs before every test file, also in a worker shared with other
// files, so every file gets the helpers' after-each hooks (see test/helpers/after-each-test.ts).
import { afterEach } from 'vitest';
import { runAfterEachTest } from '../helpers/after-each-test.js';

afterEach(runAfterEachTest);
