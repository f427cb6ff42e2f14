-- A new emission: its number, stake and pack size.
INSERT INTO emissions (id, stake_cents, pack_size) VALUES ($1, $2, $3)
