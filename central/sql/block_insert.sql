-- A drawn block: its units and published root (central.insertBlock).
INSERT INTO blocks (emission, stake_cents, number, size, root, units)
VALUES ($1, $2, $3, $4, $5, $6)
RETURNING id
