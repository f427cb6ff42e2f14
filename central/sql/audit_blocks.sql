-- Every block (or the one of id $1) with its secret seed, closure counters
-- (block_counts: the packs' own sold counters) and, once archived
-- (migrations/0013), its archive, for the audit and the archive; its units
-- are read one block at a time.
SELECT b.id, b.emission, b.stake_cents, b.number, b.size, b.root, b.closed_at IS NOT NULL AS closed,
       b.seed AS revealed, s.seed AS secret, c.next, c.sold, c.voided,
       coalesce(a.file, '') AS archive_file, a.sha256 AS archive_sha256
  FROM blocks b JOIN block_seeds s ON s.block_id = b.id JOIN block_counts c ON c.block_id = b.id
  LEFT JOIN archived_blocks a ON a.block_id = b.id
 WHERE $1::bigint IS NULL OR b.id = $1
 ORDER BY b.id
