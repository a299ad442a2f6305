/** `/mergequeue digest remove <id>`. */
import type { DigestCommandContext, DigestManager } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function removeDigest(
  manage: DigestManager,
  c: DigestCommandContext,
  id: string,
): Promise<SlackReply> {
  return renderDigestAnswer(await manage.remove(c, id));
}
