/** The one channel pacer lives with the outbox; this name stays for the code that imported it here. */
export { ChannelPacer } from '../outbox/pacer.ts';
