/**
 * The archive's commands and their usage lines, apart from cli/archive.ts so that listing them
 * (every `npm run town` that is not a card command) loads none of the stores and projections.
 */
export const archiveCommands = new Set(['export', 'import', 'verify']);

export const archiveUsage = [
  'export <file> [--no-secrets]                                   write the journal, its digests and the keys to one archive (gzip, JSON lines)',
  'import <file>                                                  make a town from an archive in an empty TOWN_DATA',
  'verify <file>                                                  check an archive whole (checksum) and print its position, height and digests',
];
