-- A sold unit of the fleet, by ticket.
SELECT kiosk, pack_serial, seq, sold_at, player, unit, revealed FROM sales WHERE ticket = $1
