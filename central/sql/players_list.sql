-- Every account, or account $1's (NULL: all), as sf_player_json writes it
-- now, by card (migrations/0007).
SELECT sf_player_json(p.player, now()) AS account FROM players p WHERE $1::text IS NULL OR p.player = $1 ORDER BY p.player
