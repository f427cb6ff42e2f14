-- The closed blocks (all, or the one of id $1), with what their closing
-- report states of them: when drawn (the emission's creation), first pack
-- cut (claimed), closed; commitment, revealed seed, units. Not an archived
-- block's: its sales are in its archive (central archive).
SELECT b.id, b.emission, b.stake_cents, b.number, b.size, e.created_at AS drawn_at,
       (SELECT min(p.claimed_at) FROM packs p WHERE p.block_id = b.id) AS opened_at, b.closed_at, b.root, b.seed
  FROM blocks b JOIN emissions e ON e.id = b.emission
 WHERE b.closed_at IS NOT NULL AND ($1::bigint IS NULL OR b.id = $1)
   AND NOT EXISTS (SELECT 1 FROM archived_blocks a WHERE a.block_id = b.id)
 ORDER BY b.emission, b.stake_cents, b.number
