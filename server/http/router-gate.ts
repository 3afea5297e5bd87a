/**
 * Capability routers are mounted at `/` and name their full paths, so without help every request
 * walks the routes of every router before its own (about 160, a regular expression each). A gate
 * in front of a router lets a request in only when its path could match one of the router's
 * routes, judged by each route's literal beginning (`/api/admin/history/:promptId` begins
 * `/api/admin/history/`): a request that could match still meets the router's own matching,
 * so nothing that used to reach a route stops reaching it. A router holding anything else (a
 * middleware, a pattern that is not a string) is always entered.
 */
import type { RequestHandler, Router } from 'express';

interface StackLayer {
  route?: { path?: unknown };
}

/** Where path-to-regexp's syntax begins in a route: a parameter, a wildcard, a group, an escape. */
const SYNTAX = /[:*{\\([?+!]/;

/**
 * The lower-case literal beginnings of a router's routes; null when some layer could match a path
 * without one. Trailing slashes are dropped: Express matches `/a/` and `/a` alike.
 */
export function routePrefixes(stack: readonly StackLayer[]): string[] | null {
  const prefixes: string[] = [];
  for (const layer of stack) {
    const path = layer.route?.path;
    const paths = Array.isArray(path) ? (path as unknown[]).flat(Infinity) : [path];
    for (const p of paths) {
      if (typeof p !== 'string') return null;
      const syntax = p.search(SYNTAX);
      const literal = (syntax < 0 ? p : p.slice(0, syntax)).replace(/\/+$/, '');
      // Route matching ignores ASCII case only: a literal beyond ASCII is not judged here.
      if (!literal.startsWith('/') || /[^\x20-\x7e]/.test(literal)) return null;
      prefixes.push(literal.toLowerCase());
    }
  }
  return prefixes;
}

/** `router` behind its gate (see above), for `app.use`. */
export function gatedRouter(router: Router): RequestHandler {
  let gate: { size: number; prefixes: string[] | null } | null = null;
  return (req, res, next) => {
    // Routes may be added after mounting: the gate is made again when the router grows.
    const stack = router.stack as StackLayer[];
    if (gate?.size !== stack.length) gate = { size: stack.length, prefixes: routePrefixes(stack) };
    const prefixes = gate.prefixes;
    if (prefixes) {
      const path = req.path.toLowerCase();
      if (!prefixes.some((prefix) => path.startsWith(prefix))) return next();
    }
    router(req, res, next);
  };
}
