-- A block by its reference: its row id and whether it is closed.
SELECT id, closed_at IS NOT NULL FROM blocks WHERE emission = $1 AND stake_cents = $2 AND number = $3
