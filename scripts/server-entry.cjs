// The entry `npm start` runs (copied to dist/server/start.cjs by bundle-server.mjs): the one-file
// server bundle beside it. On a Node that has it (22.1 and later), Node's own compile cache keeps
// the compiled code between starts; an older Node simply compiles at every start.
'use strict';
require('node:module').enableCompileCache?.();
require('./main.bundle.cjs');
