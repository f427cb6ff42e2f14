-- Movement ids a kiosk used more than once, for the audit: push_movements
-- refuses one, no unique key does since movements are partitioned
-- (migrations/0015).
SELECT kiosk, id, count(*) FROM movements GROUP BY kiosk, id HAVING count(*) > 1 ORDER BY kiosk, id
