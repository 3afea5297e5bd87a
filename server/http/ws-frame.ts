/**
 * WebSocket data frames as a server sends them (RFC 6455 §5.2: one final frame, unmasked), built
 * once per broadcast so the hub writes the same bytes to every client. Handed a message per client,
 * the socket library frames it again for each one: a header buffer, two writes and a `writev`
 * per client, which at 200 clients was most of the fan-out loop's own cost.
 */

const FIN = 0x80;
const OPCODE_TEXT = 0x1;
const OPCODE_BINARY = 0x2;
/** Payload lengths up to this fit the 7-bit length field; longer ones use 16 or 64 bits. */
const MAX_SHORT_LENGTH = 125;
const MAX_16_BIT_LENGTH = 0xffff;

function headerLength(payloadLength: number): number {
  if (payloadLength <= MAX_SHORT_LENGTH) return 2;
  return payloadLength <= MAX_16_BIT_LENGTH ? 4 : 10;
}

function frameWithHeader(opcode: number, payloadLength: number): { frame: Buffer; offset: number } {
  const offset = headerLength(payloadLength);
  const frame = Buffer.allocUnsafe(offset + payloadLength);
  frame[0] = FIN | opcode;
  if (offset === 2) frame[1] = payloadLength;
  else if (offset === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(payloadLength, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(payloadLength), 2);
  }
  return { frame, offset };
}

/** A text frame of `text`, UTF-8 encoded straight into the frame (no intermediate buffer). */
export function textFrame(text: string): Buffer {
  const { frame, offset } = frameWithHeader(OPCODE_TEXT, Buffer.byteLength(text, 'utf8'));
  frame.write(text, offset, 'utf8');
  return frame;
}

/** A binary frame whose payload is `parts` one after the other (each copied once into the frame). */
export function binaryFrame(...parts: Uint8Array[]): Buffer {
  let length = 0;
  for (const part of parts) length += part.length;
  const { frame, offset } = frameWithHeader(OPCODE_BINARY, length);
  let at = offset;
  for (const part of parts) {
    frame.set(part, at);
    at += part.length;
  }
  return frame;
}
