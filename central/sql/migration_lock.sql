-- Serialises migration runners (two concurrent `central init` wait for each
-- other): a transaction-level advisory lock, released at commit.
SELECT pg_advisory_xact_lock(hashtext('starfortune central migrations'))
