/**
 * A failure of an /xrpc route: one of the AT Protocol errors of spec 7.3, rendered by the front
 * as `{error, message}` with the table's HTTP status (src/contract/envelope.ts). Thrown by the
 * repository's queries, so it lives with the contract and not with the web.
 */
import type { XrpcError } from './errors.js';

export class XrpcFailure extends Error {
  constructor(
    readonly error: XrpcError,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'XrpcFailure';
  }
}
