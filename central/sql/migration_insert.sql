-- Records migration $1 (file $2) as applied, in its own transaction.
INSERT INTO schema_migrations (version, name) VALUES ($1, $2)
