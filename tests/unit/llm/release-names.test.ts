/**
 * Tags and asset names from the llama.cpp release source become folder and file names under the
 * runtimes folder: a release whose tag is a path (`../`) is skipped, and so is an asset whose name
 * is one, before anything is downloaded, deleted or replaced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseSourceClient } from '../../../server/llm/runtimes/release-source.client.js';
import { startFakeReleaseSource, type FakeReleaseSource } from '../../helpers/fake-llama-releases.js';

let source: FakeReleaseSource;
const asset = (name: string) => ({ name, content: Buffer.from('x') });

beforeAll(async () => {
  source = await startFakeReleaseSource([
    { tag: '../../../outside', assets: [asset('llama-b1-bin-ubuntu-x64.tar.gz')] },
    { tag: 'b6000', assets: [asset('llama-b6000-bin-ubuntu-x64.tar.gz'), asset('../../replaced.tar.gz'), asset('llama-b6000-bin-ubuntu-vulkan-x64/../../x.tar.gz')] },
  ]);
});
afterAll(async () => source.close());

describe('release source names', () => {
  it('keeps only releases and assets whose names are plain file names', async () => {
    const releases = await new ReleaseSourceClient(source.url).releases();
    expect(releases.map((r) => r.tag)).toEqual(['b6000']);
    expect(releases[0]!.assets.map((a) => a.name)).toEqual(['llama-b6000-bin-ubuntu-x64.tar.gz']);
  });
});
