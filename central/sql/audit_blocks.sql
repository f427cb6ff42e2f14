-- Every block with its secret seed and closure counters (block_counts: the
-- packs' own sold counters), for the audit.
SELECT b.id, b.emission, b.stake_cents, b.number, b.size, b.root, b.units, b.closed_at IS NOT NULL AS closed,
       b.seed AS revealed, s.seed AS secret, c.next, c.sold, c.voided
  FROM blocks b JOIN block_seeds s ON s.block_id = b.id JOIN block_counts c ON c.block_id = b.id
 ORDER BY b.id
