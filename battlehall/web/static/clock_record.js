// What an answer or a timeout spent of its clock, in words: the `clock` record of a log
// entry (the replay) or of an act's ack (the player page). docs/protocol.md, Lag.

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** "time used 1.25 s · lag credited 0.25 s · bank spent 0.00 s", or "" without a record. */
export function clockText(record) {
  if (!record) return "";
  const parts = [`time used ${seconds(record.used_ms || 0)}`];
  parts.push(`lag credited ${seconds(record.lag_ms || 0)}`);
  parts.push(`bank spent ${seconds(record.bank_ms || 0)}`);
  if (record.away_ms) parts.push(`disconnected ${seconds(record.away_ms)}`);
  return parts.join(" · ");
}
