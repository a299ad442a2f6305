/** `/mergequeue digest add failing|quarantined [owner/repo] [HH:MM] [Area/City] [daily|weekdays]`. */
import type { DigestCommandContext, DigestManager, DigestRequest } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function addDigest(
  manage: DigestManager,
  c: DigestCommandContext,
  req: Extract<DigestRequest, { op: 'add' }>,
): Promise<SlackReply> {
  return renderDigestAnswer(await manage.add(c, req));
}
