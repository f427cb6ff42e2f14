-- Every kiosk with its last sale and movement numbers, for the audit.
SELECT id, last_sale_seq, last_movement_seq FROM kiosks ORDER BY id
