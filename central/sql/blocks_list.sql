-- Every block's status, its counts summed from its packs (block_counts);
-- the seed only once the block is closed.
SELECT b.emission, b.stake_cents, b.number, b.size, c.sold, c.voided, c.handed_out AS next, b.root, b.closed_at, b.seed
  FROM blocks b JOIN block_counts c ON c.block_id = b.id
 ORDER BY b.emission, b.stake_cents, b.number
