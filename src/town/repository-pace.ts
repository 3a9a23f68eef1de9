/**
 * How the repository's projector paces its signed commits so they cost the town's turns little
 * (docs/decisions/repository-commits.md).
 */

/**
 * The repository's projector waits this long after a live entry before folding, so one signed
 * commit covers what arrived meanwhile; and gives way to the request thread (nice 10).
 */
export const repositoryLingerMs = 1000;
export const repositoryNice = 10;
/**
 * While the journal grows by 32 KiB a second or more (about 25 simple turns), or the process
 * spends a quarter of a core or more (turns, reads), the repository's projector waits for the
 * town to pause, and folds anyway once an entry has waited `maxLagMs` (docs/decisions/repository-commits.md).
 */
export const repositoryGiveWay = { journalBytesPerSecond: 32 * 1024, cpuPerSecond: 250_000, maxLagMs: 10_000 };
