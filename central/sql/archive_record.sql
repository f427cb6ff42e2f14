-- An archived block's file, SHA-256 and number of sales (central archive).
INSERT INTO archived_blocks (block_id, file, sha256, sales) VALUES ($1, $2, $3, $4)
