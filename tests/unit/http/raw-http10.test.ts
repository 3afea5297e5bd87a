import { describe, expect, it } from 'vitest';
import { HeadCollector, parseHead, requestHead } from '../../../server/http/raw-http10.js';

describe('parseHead (the bare-socket readers take on only heads they fully understand)', () => {
  it('reads status, reason, headers (lower-cased, repeats joined) and the body length', () => {
    expect(parseHead('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nX-A: 1\r\nx-a: 2')).toEqual({
      status: 206,
      statusMessage: 'Partial Content',
      headers: { 'content-length': '10', 'x-a': '1, 2' },
      length: 10,
    });
    expect(parseHead('HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nVary: a\r\nvary: b')).toEqual({
      status: 206,
      statusMessage: 'Partial Content',
      headers: { 'content-length': '10', vary: 'a, b' },
      length: 10,
    });
    expect(parseHead('HTTP/1.1 200')).toMatchObject({ status: 200, statusMessage: '' });
  });

  it('lets the close end a body without a length, and gives a 204 and a 304 none', () => {
    expect(parseHead('HTTP/1.0 200 OK\r\nETag: "v"')?.length).toBe(Infinity);
    expect(parseHead('HTTP/1.0 200 OK\r\nContent-Type: x')?.length).toBe(Infinity);
    expect(parseHead('HTTP/1.1 204 No Content')?.length).toBe(0);
    expect(parseHead('HTTP/1.1 304 Not Modified\r\nContent-Length: 99')?.length).toBe(0);
  });

  it('leaves chunked bodies, folded lines, bad lengths, 1xx and other protocols to node:http', () => {
    for (const head of [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked',
      'HTTP/1.1 200 OK\r\nContent-Length: 1, 2',
      'HTTP/1.1 200 OK\r\nContent-Length: -1',
      'HTTP/1.1 200 OK\r\nContent-Length: 1e3',
      'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded',
      'HTTP/1.1 100 Continue',
      'HTTP/1.1 101 Switching Protocols',
      'HTTP/2 200',
      'ICY 200 OK',
    ]) {
      expect(parseHead(head), head).toBeNull();
    }
  });
});

describe('HeadCollector', () => {
  const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';

  it('finds the end of the head split anywhere across reads and returns the body bytes read with it', () => {
    for (let cut = 1; cut < answer.length; cut++) {
      const collector = new HeadCollector();
      const first = collector.add(Buffer.from(answer.slice(0, cut), 'latin1'));
      const progress = first === 'more' ? collector.add(Buffer.from(answer.slice(cut), 'latin1')) : first;
      if (progress === 'more' || progress === 'refused') throw new Error(`cut at ${cut}: ${progress}`);
      expect(progress.head.status).toBe(200);
      expect(progress.head.length).toBe(5);
      // The body bytes of the read that ended the head: all of them once the head ends in the second read.
      const afterHead = answer.indexOf('\r\n\r\n') + 4;
      expect(progress.rest?.toString('latin1') ?? '', `cut at ${cut}`).toBe(cut >= afterHead ? answer.slice(afterHead, cut) : 'hello');
    }
  });

  it('holds a head still coming, and refuses one over 64 KiB or one it cannot parse', () => {
    const collector = new HeadCollector();
    expect(collector.pending).toBe(false);
    expect(collector.add(Buffer.from('HTTP/1.1 200 OK\r\nX-A: '))).toBe('more');
    expect(collector.pending).toBe(true);
    expect(collector.add(Buffer.alloc(64 * 1024, 'a'))).toBe('refused');
    expect(new HeadCollector().add(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'))).toBe('refused');
  });

  it('copies what it holds (the readers reuse their read buffer)', () => {
    const read = Buffer.from('HTTP/1.1 200 OK\r\n');
    const collector = new HeadCollector();
    expect(collector.add(read)).toBe('more');
    read.fill(0);
    const progress = collector.add(Buffer.from('Content-Length: 0\r\n\r\n'));
    expect(progress).toMatchObject({ head: { status: 200, length: 0 }, rest: null });
  });
});

describe('requestHead', () => {
  it('asks in HTTP/1.0 with the Host and the given headers', () => {
    expect(requestHead(new URL('http://127.0.0.1:8188/view?filename=a.png'), { Range: 'bytes=0-' })).toBe(
      'GET /view?filename=a.png HTTP/1.0\r\nHost: 127.0.0.1:8188\r\nRange: bytes=0-\r\n\r\n',
    );
  });

  it('refuses a header node:http would refuse', () => {
    expect(() => requestHead(new URL('http://h/'), { 'X-A': 'one\r\nInjected: yes' })).toThrow();
    expect(() => requestHead(new URL('http://h/'), { 'bad name': 'x' })).toThrow();
  });
});
