-- The open leases (not ended, not past their time) of account $1 (NULL:
-- of every account), oldest first, with what the movements pushed under
-- each used of its deposit and stake rooms (migrations/0007).
SELECT le.id, le.player, le.kiosk, le.granted_at, (extract(epoch FROM le.ttl) * 1000)::bigint AS ttl_ms, le.expires_at, le.rooms,
       coalesce(le.revoked_reason, '') AS revoked,
       coalesce((SELECT sum(m.credit_cents) FROM movements m WHERE m.lease_id = le.id AND m.kind = 'credit'), 0)::bigint AS deposited,
       coalesce((SELECT sum(m.debit_cents) FROM movements m WHERE m.lease_id = le.id AND m.kind = 'sale'), 0)::bigint AS staked
  FROM leases le
 WHERE ($1::text IS NULL OR le.player = $1) AND le.ended_at IS NULL AND le.expires_at > now()
 ORDER BY le.id
