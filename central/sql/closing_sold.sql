-- A closed block's sales per prize tier (a unit's first byte) and kiosk:
-- units and the prizes recorded with them.
SELECT get_byte(unit, 0), kiosk, count(*), sum(prize_cents)::bigint
  FROM sales WHERE block_id = $1
 GROUP BY 1, 2
