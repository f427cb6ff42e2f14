-- Every block as `central archive` chooses: closed, closed at least
-- fleet_settings.archive_after ago (due) and from when, archived, its
-- partition of sales still there (migrations/0013).
SELECT b.id, b.emission, b.stake_cents, b.number, b.closed_at IS NOT NULL AS closed,
       coalesce(b.closed_at <= now() - st.archive_after, false) AS due,
       coalesce(to_char((b.closed_at + st.archive_after) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI "UTC"'), '') AS until,
       EXISTS (SELECT 1 FROM archived_blocks a WHERE a.block_id = b.id) AS archived,
       to_regclass('sales_b' || b.id) IS NOT NULL AS attached
  FROM blocks b CROSS JOIN fleet_settings st
 ORDER BY b.id
