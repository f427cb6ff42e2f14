-- Every lease as granted, by player and grant, for the audit: its rooms
-- (NULL: the kind unbounded), its time, and when it ended.
SELECT id, player, kiosk, granted_at, (extract(epoch FROM ttl) * 1000)::bigint AS ttl_ms, expires_at, room_deposit, room_stake, room_loss, ended_at
  FROM leases
 ORDER BY player, granted_at, id
