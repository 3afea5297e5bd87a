import { afterEach, describe, expect, it } from 'vitest';
import { outputsZipName } from '../../../server/assets/assets-zip.js';
import { inWindow } from '../../../server/batches/batch-window.js';
import { ActivityLog } from '../../../server/catalog/activity-log.js';
import { newJobFolderName } from '../../../server/jobs/job-folders.store.js';
import { uniqueUploadName } from '../../../server/jobs/runner-helpers.js';
import { clockTime, fileStamp } from '../../../server/time.js';

// Node reads TZ again whenever it is assigned, so one process can stand in for boxes in other zones.
const original = process.env.TZ;
afterEach(() => {
  if (original === undefined) delete process.env.TZ;
  else process.env.TZ = original;
});

const at = new Date('2026-01-15T12:34:56Z');

describe("the box's clock in names and logs", () => {
  it('follows the process zone, not a fixed one', () => {
    process.env.TZ = 'UTC';
    expect(fileStamp(at)).toBe('20260115-123456');
    expect(clockTime(at)).toBe('12:34:56');
    process.env.TZ = 'America/New_York';
    expect(fileStamp(at)).toBe('20260115-073456');
    expect(fileStamp(at, '')).toBe('20260115073456');
    process.env.TZ = 'Asia/Tokyo';
    expect(fileStamp(at, 'T')).toBe('20260115T213456');
    expect(clockTime(at)).toBe('21:34:56');
  });

  it('is what every name and log line carries', () => {
    process.env.TZ = 'UTC';
    expect(newJobFolderName('txt2img', at)).toMatch(/^txt2img_20260115-123456_[0-9a-f]{6}$/);
    expect(uniqueUploadName('My Photo.png', at)).toMatch(/^My_Photo_20260115123456_[0-9a-f]{4}\.png$/);
    expect(outputsZipName(at)).toBe('outputs_20260115-123456.zip');
    const log = new ActivityLog(10, () => at);
    log.info('cloned');
    expect(log.list()[0]!.time).toBe('12:34:56');
    process.env.TZ = 'America/Los_Angeles';
    expect(newJobFolderName('txt2img', at)).toMatch(/^txt2img_20260115-043456_/);
  });

  it("puts a batch's window on the box's clock", () => {
    const window = { from: '12:00', to: '13:00' };
    process.env.TZ = 'UTC';
    expect(inWindow(window, at.getTime())).toBe(true);
    process.env.TZ = 'Europe/Rome';
    expect(inWindow(window, at.getTime())).toBe(false);
    process.env.TZ = 'America/New_York';
    expect(inWindow({ from: '22:00', to: '08:00' }, at.getTime())).toBe(true);
  });
});
