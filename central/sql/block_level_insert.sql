-- One stored level of a drawn block's Merkle tree: its hashes, 32 bytes each.
INSERT INTO block_levels (block_id, level, hashes) VALUES ($1, $2, $3)
