-- A block's voided packs with the positions of them the central had sold:
-- the others are the voided positions.
SELECT p.first, p.count, coalesce(array_agg(s.position) FILTER (WHERE s.position IS NOT NULL), '{}')
  FROM packs p LEFT JOIN sales s ON s.pack_serial = p.serial
 WHERE p.block_id = $1 AND p.status = 'voided'
 GROUP BY p.serial, p.first, p.count
