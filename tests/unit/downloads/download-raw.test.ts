import { describe, expect, it } from 'vitest';
import { parseHead } from '../../../server/downloads/download-raw.js';

describe('parseHead (the bare-socket reader takes on only heads it fully understands)', () => {
  it('reads status, reason, headers (lower-cased, repeats joined) and the body length', () => {
    expect(parseHead('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nX-A: 1\r\nx-a: 2')).toEqual({
      status: 206,
      statusMessage: 'Partial Content',
      headers: { 'content-length': '10', 'x-a': '1, 2' },
      length: 10,
    });
  });

  it('lets the close end a body without a length, and gives a 204 none', () => {
    expect(parseHead('HTTP/1.0 200 OK\r\nETag: "v"')?.length).toBe(Infinity);
    expect(parseHead('HTTP/1.1 204 No Content')?.length).toBe(0);
  });

  it('leaves chunked bodies, folded lines, bad lengths and other protocols to node:http', () => {
    expect(parseHead('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked')).toBeNull();
    expect(parseHead('HTTP/1.1 200 OK\r\nX-A: 1\r\n folded')).toBeNull();
    expect(parseHead('HTTP/1.1 200 OK\r\nContent-Length: 1e3')).toBeNull();
    expect(parseHead('HTTP/2 200')).toBeNull();
    expect(parseHead('HTTP/1.1 101 Switching Protocols')).toBeNull();
  });
});
