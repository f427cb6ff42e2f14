-- A pack to void, locked against concurrent pushes (which share-lock it).
SELECT p.block_id, p.status, b.closed_at IS NOT NULL
  FROM packs p JOIN blocks b ON b.id = p.block_id
 WHERE p.serial = $1
   FOR UPDATE OF p
