/**
 * The Slack side of the digest, handed to the digest service when the app is assembled (app.ts): the
 * domain collects, schedules and claims; this decides how its messages look and what Slack's errors mean.
 */
import type { DigestSurface } from '../digest/surface.ts';
import { describePostFailure, renderCreatorNotice, renderDigest, renderFailure } from './blocks/digest.ts';
import { healthDigestWithoutCharts } from './blocks/health-digest.ts';

export const digestSurface: DigestSurface = {
  renderDigest,
  renderFailure,
  describePostFailure,
  renderCreatorNotice,
  withoutCharts: healthDigestWithoutCharts,
};
