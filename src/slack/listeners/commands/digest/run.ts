/** `/mergequeue digest run <id>`: post one now, to try it (once per cooldown window). */
import type { DigestCommandContext, DigestManager } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function runDigest(
  manage: DigestManager,
  c: DigestCommandContext,
  id: string,
): Promise<SlackReply> {
  return renderDigestAnswer(await manage.run(c, id));
}
