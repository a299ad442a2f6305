/**
 * The Socket Mode side of the fake Slack: apps.connections.open hands out a ws:// URL on the fake's own
 * server, and this minimal WebSocket endpoint (RFC 6455 text, ping/pong and close frames; enough for
 * @slack/socket-mode's undici client) says hello, delivers envelopes and records their acks.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface SocketAck {
  envelopeId: string;
  payload: Record<string, unknown> | undefined;
  /** ms from sending the envelope to receiving its ack. */
  ackMs: number;
}

export interface SocketModeFake {
  /** Connections currently open. */
  connections(): number;
  /** Resolves when at least one client has connected (and received hello). */
  connected(timeoutMs?: number): Promise<void>;
  /** Sends an envelope (`slash_commands`, `interactive`, `events_api`) and resolves with its ack. */
  send(type: string, payload: Record<string, unknown>, timeoutMs?: number): Promise<SocketAck>;
  readonly acks: SocketAck[];
  closeAll(): void;
}

export interface SocketModeServer extends SocketModeFake {
  handleUpgrade(req: IncomingMessage, socket: Duplex): void;
}

function frame(opcode: number, data: Buffer): Buffer {
  const len = data.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, data]);
}

/** Reads complete frames from the buffer; returns them and what is left. */
function parseFrames(buf: Buffer): { frames: Array<{ opcode: number; data: Buffer }>; rest: Buffer } {
  const frames: Array<{ opcode: number; data: Buffer }> = [];
  let off = 0;
  while (buf.length - off >= 2) {
    const b0 = buf[off]!;
    const b1 = buf[off + 1]!;
    let len = b1 & 0x7f;
    let p = off + 2;
    if (len === 126) {
      if (buf.length - p < 2) break;
      len = buf.readUInt16BE(p);
      p += 2;
    } else if (len === 127) {
      if (buf.length - p < 8) break;
      len = Number(buf.readBigUInt64BE(p));
      p += 8;
    }
    const masked = (b1 & 0x80) !== 0;
    const maskLen = masked ? 4 : 0;
    if (buf.length - p < maskLen + len) break;
    const mask = masked ? buf.subarray(p, p + 4) : undefined;
    p += maskLen;
    const data = Buffer.from(buf.subarray(p, p + len));
    if (mask) for (let i = 0; i < data.length; i++) data[i]! ^= mask[i % 4]!;
    frames.push({ opcode: b0 & 0x0f, data });
    off = p + len;
  }
  return { frames, rest: buf.subarray(off) };
}

export function createSocketModeServer(onChange: () => void): SocketModeServer {
  const sockets = new Set<Duplex>();
  const pending = new Map<string, { sentAt: number; resolve: (a: SocketAck) => void }>();
  const acks: SocketAck[] = [];
  const waiters: Array<() => void> = [];

  const onText = (text: string) => {
    let msg: { envelope_id?: unknown; payload?: unknown };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return;
    }
    if (typeof msg.envelope_id !== 'string') return;
    const p = pending.get(msg.envelope_id);
    const ack: SocketAck = {
      envelopeId: msg.envelope_id,
      payload:
        msg.payload && typeof msg.payload === 'object' ? (msg.payload as Record<string, unknown>) : undefined,
      ackMs: p ? performance.now() - p.sentAt : Number.NaN,
    };
    acks.push(ack);
    pending.delete(msg.envelope_id);
    p?.resolve(ack);
    onChange();
  };

  return {
    acks,
    connections: () => sockets.size,
    handleUpgrade(req, socket) {
      const key = req.headers['sec-websocket-key'];
      if (typeof key !== 'string') {
        socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      const accept = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      socket.write(
        `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
      );
      sockets.add(socket);
      let buf: Buffer = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        const { frames, rest } = parseFrames(buf);
        buf = rest;
        for (const f of frames) {
          if (f.opcode === 0x1) onText(f.data.toString('utf8'));
          else if (f.opcode === 0x9) socket.write(frame(0xa, f.data));
          else if (f.opcode === 0x8) {
            socket.end(frame(0x8, f.data.subarray(0, 2)));
            sockets.delete(socket);
          }
        }
      });
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => sockets.delete(socket));
      const hello = {
        type: 'hello',
        num_connections: sockets.size,
        debug_info: { host: 'fake-slack', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0FAKEAPP' },
      };
      socket.write(frame(0x1, Buffer.from(JSON.stringify(hello))));
      for (const w of waiters.splice(0)) w();
      onChange();
    },
    connected(timeoutMs = 5_000) {
      if (sockets.size > 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no Socket Mode connection')), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    send(type, payload, timeoutMs = 5_000) {
      const socket = [...sockets][0];
      if (!socket) return Promise.reject(new Error('no Socket Mode connection'));
      const envelopeId = randomUUID();
      return new Promise<SocketAck>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(envelopeId);
          reject(new Error(`envelope ${envelopeId} not acknowledged within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(envelopeId, {
          sentAt: performance.now(),
          resolve: (a) => {
            clearTimeout(timer);
            resolve(a);
          },
        });
        const envelope = {
          envelope_id: envelopeId,
          type,
          payload,
          accepts_response_payload: type !== 'events_api',
          retry_attempt: 0,
          retry_reason: '',
        };
        socket.write(frame(0x1, Buffer.from(JSON.stringify(envelope))));
      });
    },
    closeAll() {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
