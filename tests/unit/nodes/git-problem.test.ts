import { describe, expect, it } from 'vitest';
import { gitProblem } from '../../../server/nodes/node-git.js';

// git's own words (2.39–2.47) for the failures a person meets when installing a node package.
describe('git failures in words', () => {
  it('names a missing repository, a dead network, a URL that is not git and a missing commit', () => {
    expect(gitProblem("remote: Repository not found.\nfatal: repository 'https://github.com/a/nope/' not found")).toMatch(/^the repository was not found/);
    expect(gitProblem("fatal: '/srv/git/nope.git' does not appear to be a git repository\nfatal: Could not read from remote repository.")).toMatch(/^the repository was not found/);
    expect(gitProblem("fatal: could not read Username for 'https://github.com': terminal prompts disabled")).toMatch(/^the repository was not found/);
    expect(gitProblem("fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com")).toBe('no network: the repository host could not be reached');
    expect(gitProblem("fatal: unable to access 'https://10.0.0.9/a/b/': Failed to connect to 10.0.0.9 port 443 after 3 ms: Connection refused")).toMatch(/^no network/);
    expect(gitProblem("fatal: repository 'https://example.com/page/' not found\nfatal: https://example.com/page/info/refs not valid: is this a git repository?")).toMatch(/^not a git repository/);
    expect(gitProblem('fatal: reference is not a tree: 0123456789abcdef')).toBe('that commit is not in the repository');
    expect(gitProblem('error: something new')).toBeNull();
  });
});
