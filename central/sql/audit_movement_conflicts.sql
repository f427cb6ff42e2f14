-- Every movement a push refused (never merged), for the audit.
SELECT kiosk, seq, reason FROM movement_conflicts ORDER BY id
