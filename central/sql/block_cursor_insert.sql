-- A drawn block's cursor: where its next pack is cut, and how large.
INSERT INTO block_cursors (block_id, size, pack_size) VALUES ($1, $2, $3)
