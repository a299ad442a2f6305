/**
 * A captured request cannot act twice, however its signature is spelled (issue 26). A signature header is
 * exactly `v0=` and 64 lowercase hex digits; anything else is 401. What is remembered for replay is what
 * was verified, so a copy whose headers differ only in ways the signature does not cover (content type,
 * an extra header, whitespace HTTP strips) is still the same request and is refused as a replay.
 *
 * The copies go over a raw socket so that each header reaches the app byte for byte as written (fetch
 * would refuse some spellings and cannot send one header twice).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedHeaders, slashCommandBody } from '../../../dev/fakes/slack/signing.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';

/** POSTs `body` to /slack/events with exactly these header lines; resolves with the status code. */
function sendRawHeaders(url: string, headerLines: string[], body: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status && answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.setTimeout(10_000, () => {
      socket.destroy();
      reject(new Error(`no answer; got so far: ${JSON.stringify(answer)}`));
    });
    const head = [
      'POST /slack/events HTTP/1.1',
      `host: ${hostname}:${port}`,
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
      ...headerLines,
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n${body}`);
  });
}

async function replayCount(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^mergequeue_replayed_requests_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

describe('a captured /mergequeue resume sent again with its signature respelled', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    h.trunk.addQueue('acme/web', 'main', { state: 'paused' });
  });
  afterAll(async () => h?.close());

  it('acts once: every respelling gets 401, one updateQueue, one announcement', async () => {
    const body = slashCommandBody({
      teamId: TEAM,
      userId: USERS.admin,
      channelId: CHANNEL,
      text: 'resume acme/web:main',
      responseUrl: h.slack.responseUrl({ channel: CHANNEL, user: USERS.admin }),
    });
    const signed = signedHeaders(h.signingSecret, body);
    const sig = signed['x-slack-signature']!;
    const hex = sig.slice('v0='.length);
    const ts = signed['x-slack-request-timestamp']!;
    const form = 'content-type: application/x-www-form-urlencoded';
    const stamp = `x-slack-request-timestamp: ${ts}`;
    const headers = (signature: string, ...rest: string[]) => [
      form,
      stamp,
      `x-slack-signature: ${signature}`,
      ...rest,
    ];

    expect(await sendRawHeaders(h.url, headers(sig), body)).toBe(200);
    await h.slack.waitFor(() => (h.trunk.queue('acme/web', 'main')!.state === 'running' ? true : undefined));
    await h.idle();
    // Someone pauses again; a copy that acted would resume the queue (and say so) once more.
    h.trunk.patchQueue('acme/web', 'main', { state: 'paused' });

    const mixed = [...hex].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    const malformed: Array<[string, string[]]> = [
      ['uppercase hex', headers(`v0=${hex.toUpperCase()}`)],
      ['mixed-case hex', headers(`v0=${mixed}`)],
      ['uppercase version', headers(`V0=${hex}`)],
      ['trailing zz', headers(`${sig}zz`)],
      ['an odd hex digit more', headers(`${sig}0`)],
      ['=x appended', headers(`${sig}=x`)],
      ['a comma list', headers(`${sig}, ${sig}`)],
      ['two headers', [...headers(sig), `x-slack-signature: ${sig}`]],
      ['a bad header then the right one', [...headers('v0=00'), `x-slack-signature: ${sig}`]],
      ['a space after v0=', headers(`v0= ${hex}`)],
      ['a space inside', headers(`v0=${hex.slice(0, 10)} ${hex.slice(10)}`)],
      ['one digit short', headers(`v0=${hex.slice(0, 63)}`)],
      ['base64 of the same bytes', headers(`v0=${Buffer.from(hex, 'hex').toString('base64')}`)],
      [
        'a timestamp with a leading zero',
        [form, `x-slack-request-timestamp: 0${ts}`, `x-slack-signature: ${sig}`],
      ],
      ['a timestamp with .0', [form, `x-slack-request-timestamp: ${ts}.0`, `x-slack-signature: ${sig}`]],
      ['a timestamp with a plus', [form, `x-slack-request-timestamp: +${ts}`, `x-slack-signature: ${sig}`]],
    ];
    // These reach the app as the verified request itself (HTTP strips the whitespace around a header
    // value; the signature covers neither the content type nor other headers): replays.
    const sameRequest: Array<[string, string[]]> = [
      ['the identical copy', headers(sig)],
      ['trailing spaces', headers(`${sig}   `)],
      ['a trailing tab', headers(`${sig}\t`)],
      ['another content type', ['content-type: application/json', stamp, `x-slack-signature: ${sig}`]],
      ['a retry header added', headers(sig, 'x-slack-retry-num: 1', 'x-slack-retry-reason: http_timeout')],
    ];

    const statuses: Record<string, number> = {};
    for (const [name, lines] of [...malformed, ...sameRequest]) {
      statuses[name] = await sendRawHeaders(h.url, lines, body);
    }
    expect(statuses).toEqual(Object.fromEntries([...malformed, ...sameRequest].map(([n]) => [n, 401])));

    await new Promise((r) => setTimeout(r, 300));
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    const announcements = h.slack
      .channelMessages(CHANNEL)
      .filter((m) => /resumed/.test(JSON.stringify(m.text ?? '')));
    expect(announcements).toHaveLength(1);
    // Only copies of the verified request count as replays; a malformed signature is a forgery.
    expect(await replayCount(h.url)).toBe(sameRequest.length);
  });
});
