-- A drawn block's secret seed, which no kiosk role can read.
INSERT INTO block_seeds (block_id, seed) VALUES ($1, $2)
