-- The open leases of account $1 (NULL: of every account), oldest first
-- (migrations/0009).
SELECT * FROM sf_player_leases($1) ORDER BY id
