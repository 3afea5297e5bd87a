/**
 * Young-generation collections (scavenges) on the main thread only, once Studio serves. By
 * default V8 splits each scavenge across helper threads and waits for all of them; where the cores
 * are busy (the engine, a browser, the desktop shell) the helpers wait for a core and the pause
 * grows with the wait. In the relay bench on a loaded 2-core machine a scavenge paused Studio for
 * 1.1-3.8 ms at the median with helpers and 0.4-0.8 ms without, and one comes every few hundred
 * progress messages (or every few broadcasts to 200 clients), each pause holding back every frame
 * to every client. Once Studio serves, a scavenge finds little alive and the helpers save nothing;
 * during the start (modules, caches: most of it survives) they do, so the start keeps them (set
 * from the start, the start took ~100 ms longer there).
 *
 * Set at run time: the desktop shell runs Studio inside its own process, so Studio has no command
 * line of its own. Only `--no-parallel-scavenge`, which V8 reads afresh at every scavenge (its own
 * tests flip it in a live isolate): `--single-threaded-gc` set at run time also turns off
 * concurrent marking under a marker already set up for it, and V8 aborted
 * (`concurrent_marking_handle_` check) at the next full collection. The compiled server's code
 * cache does not depend on the flag (V8 leaves it out of the cache's flag hash).
 */
import v8 from 'node:v8';

/** Scavenge on the main thread only from now on (call once Studio serves). */
export function scavengeOnMainThread(): void {
  v8.setFlagsFromString('--no-parallel-scavenge');
}
