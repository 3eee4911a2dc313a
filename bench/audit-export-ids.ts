// The names the audit export benchmark's database and its measured runs share.
export const WORKSPACE = 'TBENCH';
export const VIEWER = 'UVIEWER';
/** The conversation the viewer is in; entries from any other have their details withheld. */
export const VIEWER_CHANNEL = 'CIN';
