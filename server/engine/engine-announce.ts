/**
 * What Studio's clients and the event log learn of the engine's state: every state goes to the
 * WebSocket clients; a change of status is an event, a crash an error the user should see (a
 * restart after the engine died is a crash too, not routine news).
 */
import type { EventBus } from '../events/event-bus.js';
import type { WsHub } from '../http/ws-hub.js';
import { engineMessage, type EngineProcess, type EngineState } from './engine-process.js';

/** Announce every state change of `engine`; `onChange` gets each status change first. Returns the unsubscriber. */
export function announceEngineStates(
  engine: EngineProcess,
  deps: { events: EventBus; hub: WsHub },
  onChange: (state: EngineState, previous: EngineState['status']) => void,
): () => void {
  let lastStatus = engine.state.status;
  return engine.onStateChange((state) => {
    deps.hub.broadcast('engine.state', engineMessage(state));
    if (state.status === lastStatus) return;
    const previous = lastStatus;
    lastStatus = state.status;
    onChange(state, previous);
    if (state.status === 'crashed') {
      deps.events.emit('engine.crashed', 'error', `The engine crashed and was not restarted: ${state.lastError ?? 'unknown error'}`, {
        mode: state.mode,
        restarts: state.restarts,
        stderr_tail: state.stderrTail.slice(-10),
      });
      return;
    }
    const died = state.status === 'restarting' && state.lastError !== null;
    const severity = state.status === 'unreachable' || died ? 'warning' : 'info';
    const message = died ? `The engine crashed (${state.lastError}); restarting it` : `Engine ${state.status}`;
    deps.events.emit('engine.state', severity, message, { mode: state.mode, status: state.status });
  });
}
