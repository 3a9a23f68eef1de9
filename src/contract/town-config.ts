/** What a town is started with; read by the rooms and the front alike. */
export interface TownConfig {
  /** Host name (with port when not default) used in principals: guest:<host>:<name>. */
  host: string;
  /** Public origin, e.g. http://localhost:8080; links in replies are relative to it. */
  origin: string;
  /** Open town: `arrive` exists and turns are counted against the hourly turn quota. */
  open: boolean;
  /** Secret key for MACs (arrival challenges, cookies); kept under the data directory. */
  secret: Uint8Array;
  /** Served over https (cookies get Secure). */
  secure: boolean;
  /** The catalogue shape served (spec 9); absent: the current one. */
  catalogue?: 'current' | 'earlier';
}
