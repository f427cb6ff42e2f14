-- The migrations applied, one row each (central.go's runner).
CREATE TABLE IF NOT EXISTS schema_migrations (
	version    int PRIMARY KEY,
	name       text NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)
