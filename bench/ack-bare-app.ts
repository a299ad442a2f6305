/**
 * The baseline for bench/ack.bench.ts: a bare Bolt app, configured like ours (HTTP receiver,
 * processBeforeResponse false, the same fake Slack), whose /mergequeue listener only acks. It verifies
 * signatures (Bolt does) but writes nothing. GET /healthz answers like the app's, for the load generator's
 * keep-warm pings.
 * Logs one JSON line with its URL, like src/main.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

const receiver = new HTTPReceiver({
  signingSecret: process.env['SLACK_SIGNING_SECRET']!,
  endpoints: '/slack/events',
  processBeforeResponse: false,
  logLevel: LogLevel.ERROR,
  customRoutes: [
    {
      path: '/healthz',
      method: ['GET', 'HEAD'],
      handler: (_req, res) => {
        const text = JSON.stringify({ status: 'ok' });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      },
    },
  ],
});
const app = new App({
  receiver,
  token: process.env['SLACK_BOT_TOKEN']!,
  clientOptions: { slackApiUrl: process.env['SLACK_API_URL']! },
  logLevel: LogLevel.ERROR,
});
app.command(/^\/mergequeue/, async ({ ack }) => {
  await ack();
});
const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
process.stdout.write(
  `${JSON.stringify({ msg: 'bare bolt listening', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`,
);
process.once('SIGTERM', () => {
  void app.stop().finally(() => process.exit(0));
});
