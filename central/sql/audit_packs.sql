-- A block's packs, in position order, for the audit and its archive.
SELECT serial, block_id, first, count, status FROM packs WHERE block_id = $1 ORDER BY first
