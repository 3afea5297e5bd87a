/**
 * The engine's `/view` rules (engine-protocol.md §1) as Studio and the stand-in apply them:
 * which file a query names or the status it is refused with, and the Content-Type it is sent with.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineDirs } from '../../../server/engine/engine-paths.js';
import { resolveViewFile, safeViewContentType, viewContentType, type ViewQuery } from '../../../server/engine/view-file.js';

const dirs: EngineDirs = { input: '/data/assets/input', output: '/data/assets/output', temp: '/data/engine/temp/temp' };
const view = (filename: string, type = 'output', subfolder: string | null = '') => resolveViewFile(dirs, { filename, type, subfolder } satisfies ViewQuery);

describe('resolveViewFile: which folder', () => {
  it('takes the folder from type', () => {
    expect(view('a.png', 'output')).toEqual({ file: '/data/assets/output/a.png', folder: 'output' });
    expect(view('a.png', 'input')).toEqual({ file: '/data/assets/input/a.png', folder: 'input' });
    expect(view('a.png', 'temp')).toEqual({ file: '/data/engine/temp/temp/a.png', folder: 'temp' });
  });

  it('lets a [output] / [input] / [temp] annotation override type', () => {
    expect(view('a.png [output]', 'input')).toEqual({ file: '/data/assets/output/a.png', folder: 'output' });
    expect(view('a.png [input]', 'output')).toEqual({ file: '/data/assets/input/a.png', folder: 'input' });
    expect(view('a.png [temp]', 'output')).toEqual({ file: '/data/engine/temp/temp/a.png', folder: 'temp' });
    // Even an unknown type is fine when the annotation names the folder.
    expect(view('a.png [input]', 'models')).toEqual({ file: '/data/assets/input/a.png', folder: 'input' });
  });

  it('reads only an exact " [folder]" suffix as an annotation', () => {
    expect(view('a.png[output]', 'input')).toEqual({ file: '/data/assets/input/a.png[output]', folder: 'input' });
    expect(view('a.png [models]', 'input')).toEqual({ file: '/data/assets/input/a.png [models]', folder: 'input' });
  });

  it('refuses an unknown type with 400', () => {
    expect(view('a.png', 'models')).toEqual({ status: 400 });
    expect(view('a.png', '')).toEqual({ status: 400 });
  });
});

describe('resolveViewFile: names', () => {
  it('refuses a name with .. anywhere or a leading / with 400', () => {
    expect(view('../secret.txt')).toEqual({ status: 400 });
    expect(view('sub/../../secret.txt')).toEqual({ status: 400 });
    // The engine tests for the substring, so even a harmless "a..b" is refused.
    expect(view('a..b.png')).toEqual({ status: 400 });
    expect(view('/etc/passwd')).toEqual({ status: 400 });
    expect(view('/etc/passwd [input]')).toEqual({ status: 400 });
  });

  it('refuses an empty name with 400, annotated or not', () => {
    expect(view('')).toEqual({ status: 400 });
    expect(view(' [output]')).toEqual({ status: 400 });
  });

  it('keeps only the basename of a name with folders (Python os.path.basename)', () => {
    expect(view('sub/dir/a.png')).toEqual({ file: '/data/assets/output/a.png', folder: 'output' });
    expect(view('sub/a.png', 'output', 'other')).toEqual({ file: '/data/assets/output/other/a.png', folder: 'output' });
    // On POSIX a backslash is an ordinary character, not a separator.
    if (path.sep === '/') expect(view('dir\\a.png')).toEqual({ file: '/data/assets/output/dir\\a.png', folder: 'output' });
  });
});

describe('resolveViewFile: subfolders', () => {
  it('joins a subfolder inside the folder', () => {
    expect(view('a.png', 'output', 'job-1/final')).toEqual({ file: '/data/assets/output/job-1/final/a.png', folder: 'output' });
    expect(view('a.png', 'output', 'job-1/../job-2')).toEqual({ file: '/data/assets/output/job-2/a.png', folder: 'output' });
    expect(view('a.png', 'output', '.')).toEqual({ file: '/data/assets/output/a.png', folder: 'output' });
  });

  it('refuses a subfolder escaping the folder with 403', () => {
    expect(view('a.png', 'output', '../x')).toEqual({ status: 403 });
    expect(view('a.png', 'output', '..')).toEqual({ status: 403 });
    expect(view('a.png', 'input', 'sub/../../x')).toEqual({ status: 403 });
    expect(view('a.png', 'output', '/etc')).toEqual({ status: 403 });
    // A sibling whose name starts like the folder is still outside it.
    expect(view('a.png', 'output', '../output-evil')).toEqual({ status: 403 });
  });

  it('accepts an absolute subfolder that lies inside the folder', () => {
    expect(view('a.png', 'output', '/data/assets/output/sub')).toEqual({ file: '/data/assets/output/sub/a.png', folder: 'output' });
  });

  it('skips the check when the query has no subfolder at all', () => {
    expect(view('a.png', 'output', null)).toEqual({ file: '/data/assets/output/a.png', folder: 'output' });
    expect(view('a.png [temp]', 'output', null)).toEqual({ file: '/data/engine/temp/temp/a.png', folder: 'temp' });
  });

  it('checks the name before the subfolder', () => {
    expect(view('../a.png', 'output', '../x')).toEqual({ status: 400 });
  });
});

describe('viewContentType', () => {
  it('guesses media types from the extension, in any case', () => {
    expect(viewContentType('a.png')).toBe('image/png');
    expect(viewContentType('clip.mp4')).toBe('video/mp4');
    expect(viewContentType('a.webp')).toBe('image/webp');
    expect(viewContentType('A.JPG')).toBe('image/jpeg');
    expect(viewContentType('dir/b.webm')).toBe('video/webm');
  });

  it('forces markup, scripts and styles to download', () => {
    for (const name of ['page.html', 'page.htm', 'page.xhtml', 'app.js', 'app.mjs', 'site.css']) {
      expect(viewContentType(name)).toBe('application/octet-stream');
    }
  });

  it('sends unknown or missing extensions as octet-stream', () => {
    expect(viewContentType('model.safetensors')).toBe('application/octet-stream');
    expect(viewContentType('README')).toBe('application/octet-stream');
  });
});

describe('safeViewContentType', () => {
  it('downgrades forced-download types whatever their parameters or case', () => {
    expect(safeViewContentType('text/html; charset=utf-8')).toBe('application/octet-stream');
    expect(safeViewContentType('TEXT/HTML')).toBe('application/octet-stream');
    expect(safeViewContentType('text/javascript')).toBe('application/octet-stream');
    expect(safeViewContentType('text/css;charset=utf-8')).toBe('application/octet-stream');
    expect(safeViewContentType('application/xhtml+xml')).toBe('application/octet-stream');
    expect(safeViewContentType('text/html-sandboxed')).toBe('application/octet-stream');
  });

  it('leaves every other type exactly as given', () => {
    expect(safeViewContentType('image/png')).toBe('image/png');
    expect(safeViewContentType('video/mp4')).toBe('video/mp4');
    expect(safeViewContentType('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
  });
});
