-- Every sale, for the audit.
SELECT ticket, block_id, position, pack_serial, kiosk, seq, stake_cents, prize_cents, unit FROM sales ORDER BY block_id, position
