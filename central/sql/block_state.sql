-- A block by its reference: its row id, whether it is closed, and whether
-- archived (migrations/0013).
SELECT b.id, b.closed_at IS NOT NULL, EXISTS (SELECT 1 FROM archived_blocks a WHERE a.block_id = b.id)
  FROM blocks b WHERE b.emission = $1 AND b.stake_cents = $2 AND b.number = $3
