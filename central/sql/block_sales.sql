-- The sales of one closed block, in position order (central units): the
-- columns of sale_show with the position.
SELECT s.position, s.kiosk, s.pack_serial AS pack, s.seq, s.sold_at, s.player, s.unit, s.revealed
  FROM sales s JOIN blocks b ON b.id = s.block_id
 WHERE b.emission = $1 AND b.stake_cents = $2 AND b.number = $3 AND b.closed_at IS NOT NULL
 ORDER BY s.position
