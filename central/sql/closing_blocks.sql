-- The closed blocks (all, or the one of id $1), with what their closing
-- report states of them: when drawn (the emission's creation), first pack
-- cut (claimed), closed; commitment, revealed seed, units.
SELECT b.id, b.emission, b.stake_cents, b.number, b.size, e.created_at AS drawn_at,
       (SELECT min(p.claimed_at) FROM packs p WHERE p.block_id = b.id) AS opened_at, b.closed_at, b.root, b.seed
  FROM blocks b JOIN emissions e ON e.id = b.emission
 WHERE b.closed_at IS NOT NULL AND ($1::bigint IS NULL OR b.id = $1)
 ORDER BY b.emission, b.stake_cents, b.number
