-- Voids a pack: its unsold positions count as voided for the block's closure.
WITH v AS (
	UPDATE packs SET status = 'voided', voided_at = now(), void_reason = $2
	 WHERE serial = $1
	RETURNING block_id, count - (SELECT count(*) FROM sales s WHERE s.pack_serial = $1) AS unsold
)
UPDATE block_cursors bc SET voided = bc.voided + v.unsold FROM v WHERE bc.block_id = v.block_id
