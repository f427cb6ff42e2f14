-- The fleet's register of large wins: the prizes of $1 cents and more the
-- kiosks' synced sales credited, with the holder of the account (none for
-- a wallet without a fleet account), the kiosk, and how the prize was
-- paid by hand (paid_at NULL while it was not: migrations/0008), oldest first.
SELECT m.at, m.kiosk, m.player, coalesce(p.holder, '') AS holder, coalesce(p.doc_key, '') AS doc_key, coalesce(m.ticket, '') AS ticket,
       m.debit_cents, m.credit_cents, h.at AS paid_at, coalesce(h.document, '') AS paid_document, coalesce(h.checked_by, '') AS checked_by,
       coalesce(h.paid_by, '') AS paid_by, coalesce(h.method, '') AS method, coalesce(h.reference, '') AS reference
  FROM movements m LEFT JOIN players p ON p.player = m.player
       LEFT JOIN hand_pays h ON h.ticket = m.ticket AND h.kiosk = m.kiosk
 WHERE m.kind = 'sale' AND m.credit_cents >= $1
 ORDER BY m.at, m.kiosk, m.seq
