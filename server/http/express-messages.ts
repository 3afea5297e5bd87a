/**
 * Requests and responses made with Express's prototypes from the start. Express gives each one
 * its prototype on arrival (`Object.setPrototypeOf` in `app.handle`); V8 handles that badly: every
 * request's objects outlived the young generation (about 1 MB promoted per scavenge, all of it
 * garbage), and a history page cost 0.1 ms more CPU than with the router alone. Node builds its
 * request and response objects with the classes a server is given: built with Express's
 * prototypes already, Express's call changes nothing and costs nothing.
 */
import type express from 'express';
import http from 'node:http';

/** A constructor for Node that builds what `base` builds, with `prototype` as its prototype. */
function withPrototype<T extends abstract new (...args: never[]) => object>(base: T, prototype: object): T {
  function Message(...args: unknown[]): object {
    return Reflect.construct(base, args, Message);
  }
  Message.prototype = prototype;
  return Message as unknown as T;
}

/** The `IncomingMessage` and `ServerResponse` options of `http(s).createServer` for `app`. */
export function expressMessages(app: express.Express): { IncomingMessage: typeof http.IncomingMessage; ServerResponse: typeof http.ServerResponse } {
  return {
    IncomingMessage: withPrototype(http.IncomingMessage, app.request),
    ServerResponse: withPrototype(http.ServerResponse, app.response),
  };
}
