-- A block's sales (its partition, migrations/0013), in position order, for
-- the audit and its archive: the whole row, which the archive keeps.
SELECT ticket, block_id, position, pack_serial, kiosk, seq, sold_at, player, stake_cents, prize_cents, unit, revealed, received_at
  FROM sales WHERE block_id = $1 ORDER BY position
