/** `/mergequeue digest owners [code-owner @mentions…|none]`: list or change who digests mention. */
import type { DigestCommandContext, DigestManager, DigestRequest } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function digestOwners(
  manage: DigestManager,
  c: DigestCommandContext,
  req: Extract<DigestRequest, { op: 'owners' }>,
): Promise<SlackReply> {
  return renderDigestAnswer(await manage.owners(c, req));
}
