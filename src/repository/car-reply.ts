/**
 * A CAR reply of an XRPC query: the bytes, served as application/vnd.ipld.car. Its own module,
 * so that the hosted accounts' reads, which the XRPC methods call, name it without importing them.
 */
export interface CarReply {
  car: Uint8Array;
}
