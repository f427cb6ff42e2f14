-- Every fleet account, with when its holder was listed (NULL: never) and
-- the lease time the settings give now (the grace of a movement made
-- without a lease), for the audit of the accounts (migrations/0007).
SELECT p.player, x.listed_at, (extract(epoch FROM st.lease_ttl) * 1000)::bigint AS ttl_ms
  FROM players p CROSS JOIN fleet_settings st LEFT JOIN listed x ON x.doc_key = p.doc_key
 ORDER BY p.player
