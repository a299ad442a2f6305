import { describe, expect, it } from 'vitest';
import { assertValidMessage, assertValidModal } from '../../helpers/block-kit.ts';

describe('block-kit helper', () => {
  it('accepts a simple valid message', () => {
    expect(() =>
      assertValidMessage([{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }]),
    ).not.toThrow();
  });
  it('rejects a message over 50 blocks, an unknown block and over-long texts', () => {
    const s = { type: 'divider' };
    expect(() => assertValidMessage(Array.from({ length: 51 }, () => s))).toThrow(/51 blocks/);
    expect(() => assertValidMessage([{ type: 'nonsense' }])).toThrow(/schema/);
    expect(() =>
      assertValidMessage([{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }]),
    ).toThrow();
    expect(() =>
      assertValidMessage([
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'b' },
              action_id: 'a',
              value: 'v'.repeat(2001),
            },
          ],
        },
      ]),
    ).toThrow(/value/);
    expect(() =>
      assertValidMessage([
        { type: 'divider', block_id: 'x' },
        { type: 'divider', block_id: 'x' },
      ]),
    ).toThrow(/duplicate/);
  });
  it('rejects a modal with inputs but no submit', () => {
    const view = {
      type: 'modal',
      title: { type: 'plain_text', text: 'T' },
      blocks: [
        { type: 'input', label: { type: 'plain_text', text: 'L' }, element: { type: 'plain_text_input' } },
      ],
    };
    expect(() => assertValidModal(view)).toThrow(/submit/);
    expect(() => assertValidModal({ ...view, submit: { type: 'plain_text', text: 'OK' } })).not.toThrow();
  });
});
