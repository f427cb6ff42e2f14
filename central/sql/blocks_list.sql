-- Every block's status; the seed only once the block is closed.
SELECT b.emission, b.stake_cents, b.number, b.size, c.sold, c.voided, c.next, b.root, b.closed_at, b.seed
  FROM blocks b JOIN block_cursors c ON c.block_id = b.id
 ORDER BY b.emission, b.stake_cents, b.number
