/**
 * Job records planted straight into a Studio's database, for tests that need a job in some state
 * without running it. Studio itself changes a job's status only through its job lifecycle; this
 * is the one other user of the table's writer, and only tests import it.
 */
import { JobRecordWriter } from '../../server/jobs/job-record.writer.js';
import type { Studio } from '../../server/studio.js';

/** Insert and delete records of `studio`'s jobs table (no events, no WebSocket messages). */
export function jobFixtures(studio: Pick<Studio, 'db'>): Pick<JobRecordWriter, 'insert' | 'delete'> {
  return new JobRecordWriter(studio.db);
}
