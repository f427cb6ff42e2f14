-- The schema's version: the last migration applied, 0 for none.
SELECT coalesce(max(version), 0) FROM schema_migrations
