-- Every limit change of the fleet's accounts, in the order they apply
-- (by effective time, then as recorded), for the audit.
SELECT player, limit_key, amount_cents, effective_at FROM player_limits ORDER BY player, effective_at, id
