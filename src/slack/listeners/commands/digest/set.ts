/** `/mergequeue digest set <id> skip-empty|top|time|tz|days <value>`. */
import type { DigestCommandContext, DigestManager, DigestRequest } from '../../../../digest/index.ts';
import { renderDigestAnswer } from '../../../blocks/digest-replies.ts';
import type { SlackReply } from '../../../reply.ts';

export async function setDigestOption(
  manage: DigestManager,
  c: DigestCommandContext,
  req: Extract<DigestRequest, { op: 'set' }>,
): Promise<SlackReply> {
  return renderDigestAnswer(await manage.set(c, req));
}
