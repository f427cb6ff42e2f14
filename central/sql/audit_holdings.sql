-- Per kiosk and stake, for the audit's over-claiming findings: the unsold
-- units it holds (its claimed and returned packs less their sales), the
-- largest pack size among them, the most the claim limits let it hold
-- (fleet_settings: the packs ahead, the unsold part of the current pack,
-- and the pack just claimed), and the packs it released with nothing sold
-- (their outcomes seen, then given back: a pattern worth a look), and
-- the refused rows it pushed beyond those stored. A kiosk without packs
-- has one row, at stake 0.
SELECT k.id AS kiosk, coalesce(b.stake_cents, 0) AS stake_cents,
       coalesce(sum(p.count - p.sold) FILTER (WHERE p.status IN ('claimed', 'returned')), 0)::bigint AS held,
       coalesce(max(c.pack_size) * (st.claim_packs_ahead + 1) + max(c.pack_size) * (100 - st.claim_sold_percent) / 100, 0)::bigint AS allowed,
       count(*) FILTER (WHERE p.status = 'voided' AND p.sold = 0 AND p.void_reason LIKE 'released unsold%'
                        AND p.serial NOT LIKE '%-R%')::bigint AS released_unsold,
       k.conflicts_dropped
  FROM kiosks k CROSS JOIN fleet_settings st
  LEFT JOIN packs p ON p.kiosk = k.id LEFT JOIN blocks b ON b.id = p.block_id LEFT JOIN block_cursors c ON c.block_id = b.id
 GROUP BY k.id, b.stake_cents, st.claim_packs_ahead, st.claim_sold_percent, k.conflicts_dropped
 ORDER BY k.id, b.stake_cents
