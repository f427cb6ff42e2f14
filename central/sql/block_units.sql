-- A closed block's units (3 bytes each, serving order).
SELECT units FROM blocks WHERE id = $1 AND closed_at IS NOT NULL
