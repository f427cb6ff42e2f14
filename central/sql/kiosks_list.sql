-- The fleet's kiosks with what they hold and have synced.
SELECT k.id, k.role, k.created_at, k.last_seen, k.last_sale_seq, k.last_movement_seq,
       (SELECT count(*) FROM packs p WHERE p.kiosk = k.id AND p.status = 'claimed'),
       (SELECT count(*) FROM sales s WHERE s.kiosk = k.id)
  FROM kiosks k
 ORDER BY k.id
