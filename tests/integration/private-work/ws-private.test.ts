/**
 * Private work over the WebSocket (issue 43): real jobs of members A and B run on the stand-in
 * engine through Studio's real runner, queue, monitor and hub; sockets of A, B and the owner are
 * in the hub (fakes that record what is sent). B's socket never receives a frame about A's job —
 * no job message, no progress, no preview, no deletion — while A and the owner receive all of it.
 */
import type { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OWNER_ACTOR, type Actor } from '../../../server/http/actor.js';
import { plantModels, SHIPPED_MODELS } from '../../helpers/runner.js';
import { startTestStudio, type TestStudio } from '../../helpers/studio.js';
import { decodeStudioPreview, until } from '../../helpers/studio-ws.js';
import { person } from '../../helpers/as-person.js';

/** A socket as the hub uses it, keeping every frame sent to it. */
class RecordingSocket {
  readonly OPEN = 1;
  readyState = 1;
  bufferedAmount = 0;
  readonly text: Array<{ type: string; data: Record<string, unknown> }> = [];
  readonly binary: Buffer[] = [];
  on(): this {
    return this;
  }
  send(data: string | Buffer, options?: { binary?: boolean }): void {
    if (options?.binary) this.binary.push(data as Buffer);
    else this.text.push(JSON.parse(String(data)) as { type: string; data: Record<string, unknown> });
  }
  ping(): void {}
  close(): void {
    this.readyState = 3;
  }
  terminate(): void {
    this.readyState = 3;
  }
  /** Frames (text or preview) that mention `promptId`, leaving out the event log's own stream. */
  about(promptId: string): unknown[] {
    const texts = this.text.filter((f) => f.type !== 'event' && JSON.stringify(f.data).includes(promptId));
    const previews = this.binary.filter((b) => decodeStudioPreview(b).meta.prompt_id === promptId);
    return [...texts, ...previews];
  }
}

const A = person('user-a');
const B = person('user-b');
let t: TestStudio;
const sockets = new Map<string, RecordingSocket>();

function join(actor: Actor): RecordingSocket {
  const socket = new RecordingSocket();
  t.studio.hub.add(socket as unknown as WebSocket, undefined, '127.0.0.1', null, actor);
  sockets.set(actor.userId, socket);
  return socket;
}

async function run(actor: Actor): Promise<string> {
  const { runner, jobs } = t.studio.jobsModule;
  const { prompt_id } = await runner.execute('txt2img-sdxl', { positive: 'a fox in the snow', steps: 4 }, undefined, { ownerId: actor.userId, submitter: `user:${actor.userId}` });
  await until(() => jobs.get(prompt_id)?.status === 'completed', `job of ${actor.userId} completed`, 20_000);
  return prompt_id;
}

beforeAll(async () => {
  t = await startTestStudio({ startEngine: true, env: { STANDIN_STEP_MS: '40', STANDIN_NODE_MS: '100' } });
  await t.studio.engineReady();
  plantModels(t.dir, SHIPPED_MODELS);
  join(A);
  join(B);
  join(OWNER_ACTOR);
});

afterAll(async () => {
  await t?.stop();
});

describe("B's socket and A's job", () => {
  let aJob: string;
  let bJob: string;
  beforeAll(async () => {
    aJob = await run(A);
    bJob = await run(B);
    await t.studio.jobsModule.queries.delete([aJob, bJob]);
  });

  it('gets no frame at all about it: no job message, progress, preview or deletion', () => {
    expect(sockets.get(B.userId)!.about(aJob)).toEqual([]);
    expect(sockets.get(A.userId)!.about(bJob)).toEqual([]);
  });

  it('while A (and the owner) receive all of it', () => {
    for (const who of [A.userId, OWNER_ACTOR.userId]) {
      const socket = sockets.get(who)!;
      const types = new Set(socket.text.filter((f) => JSON.stringify(f.data).includes(aJob)).map((f) => f.type));
      expect([...types].sort()).toEqual(expect.arrayContaining(['job.completed', 'job.deleted', 'job.progress', 'job.queued', 'job.started']));
      expect(socket.binary.filter((b) => decodeStudioPreview(b).meta.prompt_id === aJob).length).toBeGreaterThan(0);
    }
    // B hears about B's own job as A hears about A's.
    expect(sockets.get(B.userId)!.about(bJob).length).toBeGreaterThan(3);
  });

  it("logs A's job events with A's user_id", () => {
    const events = t.studio.events.list({ limit: 200 }).filter((e) => (e.data as { prompt_id?: string }).prompt_id === aJob);
    expect(events.length).toBeGreaterThan(2);
    expect(events.every((e) => (e.data as { user_id?: string }).user_id === A.userId)).toBe(true);
  });

  it("gives A's retry to A, with A's user_id on its job.retried event", async () => {
    const first = await run(A);
    const { prompt_id } = await t.studio.jobsModule.runner.retry(first, 'user:user-a', A);
    expect(t.studio.jobsModule.jobs.get(prompt_id)).toMatchObject({ owner_id: A.userId, retry_of: first });
    const retried = t.studio.events.list({ limit: 200 }).find((e) => e.type === 'job.retried' && (e.data as { prompt_id?: string }).prompt_id === prompt_id);
    expect(retried?.data).toMatchObject({ user_id: A.userId });
  });
});
