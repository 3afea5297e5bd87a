/** The one version comparison every capability uses (releases, builds, CUDA/ROCm, torch, Python packages). */
import { expect, it } from 'vitest';
import { compareVersions } from '../../../server/versions.js';

it('orders numeric parts as numbers, a missing part as 0, and a pre-release before its release', () => {
  expect(compareVersions('1.10.0', '1.9.3')).toBeGreaterThan(0);
  expect(compareVersions('12.4', '12.4.0')).toBe(0);
  expect(compareVersions('2.1.0rc1', '2.1.0')).toBeLessThan(0);
  expect(compareVersions('5.7.1-98', '6.0')).toBeLessThan(0);
  expect(compareVersions(undefined, '0')).toBe(0);
  expect(compareVersions(3, '2.9')).toBeGreaterThan(0);
});
