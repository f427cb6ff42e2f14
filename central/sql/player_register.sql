-- The fleet's register of large wins: the prizes of $1 cents and more the
-- kiosks' synced sales credited, with the holder of the account (none for
-- a wallet without a fleet account) and the kiosk, oldest first.
SELECT m.at, m.kiosk, m.player, coalesce(p.holder, '') AS holder, coalesce(p.doc_key, '') AS doc_key, coalesce(m.ticket, '') AS ticket,
       m.debit_cents, m.credit_cents
  FROM movements m LEFT JOIN players p ON p.player = m.player
 WHERE m.kind = 'sale' AND m.credit_cents >= $1
 ORDER BY m.at, m.kiosk, m.seq
