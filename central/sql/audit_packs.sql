-- Every pack, in position order within its block, for the audit.
SELECT serial, block_id, first, count, status FROM packs ORDER BY block_id, first
