-- Every heartbeat whose journal head was behind the one the central had
-- anchored for its kiosk (migrations/0006), not resolved by staff
-- re-anchoring the kiosk: a rollback, for the audit.
SELECT kiosk, at, anchored_seq, coalesce(encode(anchored_hash, 'hex'), ''), reported_seq, coalesce(encode(reported_hash, 'hex'), '')
  FROM journal_alarms WHERE resolved IS NULL ORDER BY id
