-- Voids a pack: its unsold positions count as voided for the block's
-- closure (block_counts, migrations/0005).
UPDATE packs SET status = 'voided', voided_at = now(), void_reason = $2 WHERE serial = $1
