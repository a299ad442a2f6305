/**
 * Called right after ack(): this request's work (store reads, Trunk call, rendering) waits until the
 * requests received meanwhile are answered (core/scheduling-gate.ts), so a burst of commands is
 * acknowledged first and no ack waits behind another command's work.
 */
import { answersFirst } from '../observability/answers-first.ts';

export function afterAck(): Promise<void> {
  return answersFirst();
}
