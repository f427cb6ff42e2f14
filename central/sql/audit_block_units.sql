-- A block's units, for the audit and its archive.
SELECT units FROM blocks WHERE id = $1
