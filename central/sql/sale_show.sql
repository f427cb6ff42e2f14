-- A sold unit of the fleet, by ticket: the columns of lookup_ticket(), the
-- kiosks' way to it (migrations/0003).
SELECT kiosk, pack_serial AS pack, seq, sold_at, player, unit, revealed FROM sales WHERE ticket = $1
