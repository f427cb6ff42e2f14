-- The deposits and sales of the fleet's accounts, every kiosk's, by player
-- and time, with when the central received each and the lease it was
-- made under (0: none), for the audit.
SELECT m.player, m.kiosk, m.seq, m.kind, m.debit_cents, m.credit_cents, m.at, m.received_at, coalesce(m.lease_id, 0) AS lease
  FROM movements m JOIN players p ON p.player = m.player
 WHERE m.kind IN ('credit', 'sale')
 ORDER BY m.player, m.at, m.kiosk, m.seq
