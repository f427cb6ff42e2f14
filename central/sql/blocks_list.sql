-- Every block's status, its counts (sf_block_progress, migrations/0010: a
-- closed block's totals, a block in play's summed from its packs); the
-- seed only once the block is closed.
SELECT b.emission, b.stake_cents, b.number, b.size, c.sold, c.voided, c.handed_out AS next, b.root, b.closed_at, b.seed
  FROM blocks b JOIN sf_block_progress() c ON c.block_id = b.id
 ORDER BY b.emission, b.stake_cents, b.number
