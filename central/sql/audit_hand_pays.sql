-- Hand pays (migrations/0008) whose payout the central does not hold as
-- the payout of that prize to that player, for the audit: push_movements
-- stores a hand pay with its payout, no foreign key does since movements
-- are partitioned (migrations/0015).
SELECT h.kiosk, h.movement, h.ticket FROM hand_pays h
 WHERE NOT EXISTS (SELECT 1 FROM movements m WHERE m.kiosk = h.kiosk AND m.id = h.movement AND m.kind = 'payout'
                                              AND m.player = h.player AND m.debit_cents = h.prize_cents)
 ORDER BY h.kiosk, h.movement
