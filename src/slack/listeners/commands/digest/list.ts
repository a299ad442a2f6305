/** `/mergequeue digest list`: the digests of channels the person can see. */
import type { DigestCommandContext, DigestManager } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function listDigests(manage: DigestManager, c: DigestCommandContext): Promise<SlackReply> {
  return renderDigestAnswer(await manage.list(c));
}
