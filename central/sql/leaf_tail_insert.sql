-- The leaf bytes after salt, block and position of a unit encoding at a
-- stake, for sf_leaf (central.insertLeafTails); already there from an
-- earlier emission at the stake is fine.
INSERT INTO leaf_tails (stake_cents, unit, tail) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
