/** Free loopback ports for tests: the server's own rule, so tests and Studio pick ports alike. */
export { freePort } from '../../server/process/free-port.js';
