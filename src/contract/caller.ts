/**
 * Who is calling, as the core sees it: the front verifies a credential or a session through an
 * Authenticator (implemented by the identity room) and hands the Caller to the rooms.
 */
/** Who is calling, once a bearer credential or a session cookie was verified. */
export interface Caller {
  principal: string; // guest:<host>:<name>
  name: string;
  handle: string;
  did: string;
  /** Hash of the credential that authenticated the call (the rate-limit and revoke key). */
  credentialHash: string;
  via: 'bearer' | 'cookie';
}

/** Implemented by the identity room; called by the machinery for bearer and cookie routes. */
export interface Authenticator {
  bearer(credential: string): Promise<Caller | undefined>;
  session(sessionId: string): Promise<Caller | undefined>;
}
