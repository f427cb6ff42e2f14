-- Partitions of sales (migrations/0013) of a block the central does not
-- hold, for the audit.
SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'sales'::regclass AND NOT EXISTS (SELECT 1 FROM blocks b WHERE c.relname = 'sales_b' || b.id)
 ORDER BY 1
