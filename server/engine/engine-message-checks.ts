/**
 * What a sane engine message looks like, checked where the engine's WebSocket is parsed: a value
 * the engine should never send (a step of 1e308, a node output that is not a dict of lists, a
 * missing prompt id, a preview whose bytes are not the image its header says) is refused there,
 * so nothing downstream (progress, the job record, Studio's own clients) ever carries it.
 */
import { sniffKind } from '../http/file-sniff.js';

type Data = Record<string, unknown>;

const isString = (v: unknown): v is string => typeof v === 'string';
const optionalString = (v: unknown) => v === undefined || isString(v);
const optionalNullableString = (v: unknown) => v === undefined || v === null || isString(v);
/** A step count: a whole, non-negative number a client can show (the engine's are small). */
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isObject = (v: unknown): v is Data => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The engine's UI dict of a node (`executed`, history outputs): every value a list. */
function isNodeOutput(value: unknown): boolean {
  return isObject(value) && Object.values(value).every(Array.isArray);
}

const NODE_STATES = new Set(['running', 'finished', 'error', 'pending']);

function progressStateNode(value: unknown): boolean {
  if (!isObject(value)) return false;
  return (
    NODE_STATES.has(value.state as string) &&
    isCount(value.value) &&
    isCount(value.max) &&
    optionalString(value.node_id) &&
    optionalString(value.display_node_id) &&
    optionalString(value.prompt_id)
  );
}

/** By the engine's message type: the one list of the types Studio knows (typed in `engine-messages.ts`). */
const CHECKS: Record<string, (d: Data) => boolean> = {
  status: () => true,
  feature_flags: () => true,
  execution_start: (d) => isString(d.prompt_id),
  execution_success: (d) => isString(d.prompt_id),
  execution_cached: (d) => isString(d.prompt_id) && Array.isArray(d.nodes) && d.nodes.every(isString),
  executing: (d) => (d.node === null || isString(d.node)) && optionalNullableString(d.display_node) && optionalString(d.prompt_id),
  // The engine's progress bar clamps its value to its total: more than the total is not progress.
  progress: (d) => isCount(d.value) && isCount(d.max) && d.value <= d.max && optionalString(d.prompt_id) && optionalNullableString(d.node),
  progress_state: (d) => isString(d.prompt_id) && isObject(d.nodes) && Object.values(d.nodes).every(progressStateNode),
  executed: (d) => isString(d.prompt_id) && isString(d.node) && optionalString(d.display_node) && (d.output === null || isNodeOutput(d.output)),
  execution_error: (d) => isString(d.prompt_id) && isString(d.node_id) && isString(d.node_type) && isString(d.exception_message),
  execution_interrupted: (d) => isString(d.prompt_id) && optionalString(d.node_id) && optionalString(d.node_type),
};

/** For a known message type, whether its data has the shape and ranges the engine sends; null for any other type. */
export function saneMessageData(type: string, data: unknown): boolean | null {
  const check = Object.hasOwn(CHECKS, type) ? CHECKS[type] : undefined;
  return check ? isObject(data) && check(data) : null;
}

/** The preview image types Studio relays, as Studio's file sniffer names them. */
const IMAGE_KINDS: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp' };

/** True when `image` is an image of the type the frame declares (and one Studio relays). */
export function isImageOf(imageType: string, image: Buffer): boolean {
  return Object.hasOwn(IMAGE_KINDS, imageType) && sniffKind(image) === IMAGE_KINDS[imageType];
}
